package main

import (
	"reflect"
	"testing"

	"github.com/spindle-go/spindle/scan/git"
)

// TestAddHistorySumsEveryField sets every count and time of git.Stats
// (the scan.Stats it embeds and its Phases included) and checks that
// adding the stats of two repositories doubles each: a field added to the
// stats and forgotten by addHistory fails here. -l debug over several
// repositories prints the summed fetch and scan times.
func TestAddHistorySumsEveryField(t *testing.T) {
	var one git.Stats
	n := 0
	var fill func(v reflect.Value, path string)
	fill = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if f.Name == "Executor" {
					continue // the first scan's, not a sum
				}
				fill(v.Field(i), path+"."+f.Name)
			}
		case reflect.Int64:
			n++
			v.SetInt(int64(n))
		case reflect.Bool:
			v.SetBool(true)
		case reflect.String:
			v.SetString("store")
		case reflect.Map:
			v.Set(reflect.ValueOf(map[string]int64{"binary": 3}))
		default:
			t.Fatalf("%s: a field of kind %s: teach this test and addHistory about it", path, v.Kind())
		}
	}
	fill(reflect.ValueOf(&one).Elem(), "Stats")
	if one.Phases.Fetch.Busy == 0 || one.Phases.Scan.Busy == 0 || one.Duration == 0 {
		t.Fatal("fill left the phase times zero")
	}

	sum := addHistory(addHistory(git.Stats{}, one), one)

	var check func(got, want reflect.Value, path string)
	check = func(got, want reflect.Value, path string) {
		switch got.Kind() {
		case reflect.Struct:
			for i := range got.NumField() {
				f := got.Type().Field(i)
				if f.Name == "Executor" {
					continue
				}
				check(got.Field(i), want.Field(i), path+"."+f.Name)
			}
		case reflect.Int64:
			if got.Int() != 2*want.Int() {
				t.Errorf("%s = %d, want %d", path, got.Int(), 2*want.Int())
			}
		case reflect.Bool, reflect.String:
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Errorf("%s = %v, want %v", path, got, want)
			}
		case reflect.Map:
			if g := got.Interface().(map[string]int64)["binary"]; g != 6 {
				t.Errorf("%s[binary] = %d, want 6", path, g)
			}
		}
	}
	check(reflect.ValueOf(sum), reflect.ValueOf(one), "Stats")
	if sum.Phases.Fetch.Busy != 2*one.Phases.Fetch.Busy || sum.Phases.Scan.Busy != 2*one.Phases.Scan.Busy {
		t.Errorf("fetch %v, scan %v: want %v, %v", sum.Phases.Fetch.Busy, sum.Phases.Scan.Busy,
			2*one.Phases.Fetch.Busy, 2*one.Phases.Scan.Busy)
	}
}
