package report

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"
)

// templateFuncs are the functions a report template may call beyond
// text/template's own: the Sprig functions (github.com/Masterminds/sprig,
// which gitleaks adds to its templates) that a report plausibly needs,
// written here with Sprig's names, argument order (the piped value last:
// `.File | trimPrefix "./"`) and behaviour, so that gitleaks' templates run
// unchanged without the dependency. Like gitleaks, nothing here reads the
// environment or the network.
//
//	strings  abbrev cat contains hasPrefix hasSuffix indent lower nindent
//	         nospace plural quote repeat replace splitList squote substr
//	         title toString trim trimAll trimPrefix trimSuffix trunc upper
//	lists    first has join last list sortAlpha uniq
//	dicts    dict get hasKey keys
//	numbers  add add1 atoi div float64 int int64 max min mod mul sub
//	logic    coalesce default empty ternary
//	dates    ago date dateInZone htmlDate now toDate unixEpoch
//	encoding b64dec b64enc sha1sum sha256sum toJson toPrettyJson toRawJson
//	regexps  regexFind regexFindAll regexMatch regexReplaceAll
func templateFuncs() template.FuncMap {
	return template.FuncMap{
		// Strings.
		"abbrev": func(width int, s string) string {
			if width < 4 || len(s) <= width {
				return s
			}
			return s[:width-3] + "..."
		},
		"cat": func(v ...any) string {
			parts := make([]string, 0, len(v))
			for _, x := range v {
				if x != nil {
					parts = append(parts, fmt.Sprint(x))
				}
			}
			return strings.Join(parts, " ")
		},
		"contains":  func(sub, s string) bool { return strings.Contains(s, sub) },
		"hasPrefix": func(prefix, s string) bool { return strings.HasPrefix(s, prefix) },
		"hasSuffix": func(suffix, s string) bool { return strings.HasSuffix(s, suffix) },
		"indent":    indentLines,
		"nindent":   func(n int, s string) string { return "\n" + indentLines(n, s) },
		"lower":     strings.ToLower,
		"upper":     strings.ToUpper,
		"title":     titleCase,
		"nospace": func(s string) string {
			return strings.Map(func(r rune) rune {
				if unicode.IsSpace(r) {
					return -1
				}
				return r
			}, s)
		},
		"plural": func(one, many string, n int) string {
			if n == 1 {
				return one
			}
			return many
		},
		"quote": func(v ...any) string {
			parts := make([]string, 0, len(v))
			for _, x := range v {
				if x != nil {
					parts = append(parts, strconv.Quote(toString(x)))
				}
			}
			return strings.Join(parts, " ")
		},
		"squote": func(v ...any) string {
			parts := make([]string, 0, len(v))
			for _, x := range v {
				if x != nil {
					parts = append(parts, "'"+fmt.Sprint(x)+"'")
				}
			}
			return strings.Join(parts, " ")
		},
		"repeat":     func(n int, s string) string { return strings.Repeat(s, max(n, 0)) },
		"replace":    func(old, new, s string) string { return strings.ReplaceAll(s, old, new) },
		"splitList":  func(sep, s string) []string { return strings.Split(s, sep) },
		"substr":     substr,
		"toString":   toString,
		"trim":       strings.TrimSpace,
		"trimAll":    func(cut, s string) string { return strings.Trim(s, cut) },
		"trimPrefix": func(prefix, s string) string { return strings.TrimPrefix(s, prefix) },
		"trimSuffix": func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
		"trunc": func(n int, s string) string {
			switch {
			case n < 0 && len(s)+n > 0:
				return s[len(s)+n:]
			case n >= 0 && len(s) > n:
				return s[:n]
			}
			return s
		},

		// Lists.
		"list":  func(v ...any) []any { return v },
		"first": func(v any) any { return listAt(v, 0) },
		"last":  func(v any) any { return listAt(v, -1) },
		"has": func(needle, list any) bool {
			for _, x := range toList(list) {
				if reflect.DeepEqual(x, needle) {
					return true
				}
			}
			return false
		},
		"join": func(sep string, v any) string { return strings.Join(toStrings(v), sep) },
		"sortAlpha": func(v any) []string {
			s := slices.Clone(toStrings(v))
			slices.Sort(s)
			return s
		},
		"uniq": func(v any) []any {
			var out []any
			for _, x := range toList(v) {
				if !slices.ContainsFunc(out, func(y any) bool { return reflect.DeepEqual(x, y) }) {
					out = append(out, x)
				}
			}
			return out
		},

		// Dicts.
		"dict": func(kv ...any) map[string]any {
			d := make(map[string]any, len(kv)/2)
			for i := 0; i < len(kv); i += 2 {
				var v any
				if i+1 < len(kv) {
					v = kv[i+1]
				}
				d[toString(kv[i])] = v
			}
			return d
		},
		"get": func(d map[string]any, k string) any {
			if v, ok := d[k]; ok {
				return v
			}
			return ""
		},
		"hasKey": func(d map[string]any, k string) bool { _, ok := d[k]; return ok },
		"keys": func(ds ...map[string]any) []string {
			var keys []string
			for _, d := range ds {
				for k := range d {
					keys = append(keys, k)
				}
			}
			return keys
		},

		// Numbers. Arguments of any numeric type, or numeric strings, are
		// accepted and results are int64, as in Sprig.
		"atoi":    func(s string) int { n, _ := strconv.Atoi(s); return n },
		"int":     func(v any) int { return int(toInt64(v)) },
		"int64":   toInt64,
		"float64": toFloat64,
		"add": func(v ...any) int64 {
			var sum int64
			for _, x := range v {
				sum += toInt64(x)
			}
			return sum
		},
		"add1": func(v any) int64 { return toInt64(v) + 1 },
		"sub":  func(a, b any) int64 { return toInt64(a) - toInt64(b) },
		"mul": func(a any, v ...any) int64 {
			p := toInt64(a)
			for _, x := range v {
				p *= toInt64(x)
			}
			return p
		},
		"div": func(a, b any) (int64, error) {
			d := toInt64(b)
			if d == 0 {
				return 0, errors.New("div: division by zero")
			}
			return toInt64(a) / d, nil
		},
		"mod": func(a, b any) (int64, error) {
			d := toInt64(b)
			if d == 0 {
				return 0, errors.New("mod: division by zero")
			}
			return toInt64(a) % d, nil
		},
		"max": func(a any, v ...any) int64 {
			m := toInt64(a)
			for _, x := range v {
				m = max(m, toInt64(x))
			}
			return m
		},
		"min": func(a any, v ...any) int64 {
			m := toInt64(a)
			for _, x := range v {
				m = min(m, toInt64(x))
			}
			return m
		},

		// Logic.
		"default": func(d any, given ...any) any {
			if len(given) == 0 || isEmpty(given[0]) {
				return d
			}
			return given[0]
		},
		"empty": isEmpty,
		"coalesce": func(v ...any) any {
			for _, x := range v {
				if !isEmpty(x) {
					return x
				}
			}
			return nil
		},
		"ternary": func(yes, no any, cond bool) any {
			if cond {
				return yes
			}
			return no
		},

		// Dates. A date argument is a time.Time or seconds since the epoch;
		// zones are IANA names, "Local" by default.
		"now":        time.Now,
		"date":       func(layout string, t any) string { return dateIn(layout, t, "Local") },
		"dateInZone": dateIn,
		"htmlDate":   func(t any) string { return dateIn("2006-01-02", t, "Local") },
		"toDate": func(layout, s string) time.Time {
			t, _ := time.ParseInLocation(layout, s, time.Local)
			return t
		},
		"unixEpoch": func(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) },
		"ago": func(t any) string {
			return time.Since(toTime(t)).Round(time.Second).String()
		},

		// Encoding.
		"b64enc": func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
		"b64dec": func(s string) string {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return err.Error() // as Sprig: the error text in place of the value
			}
			return string(b)
		},
		"sha1sum": func(s string) string {
			h := sha1.Sum([]byte(s))
			return hex.EncodeToString(h[:])
		},
		"sha256sum": func(s string) string {
			h := sha256.Sum256([]byte(s))
			return hex.EncodeToString(h[:])
		},
		"toJson": func(v any) string {
			b, _ := json.Marshal(v)
			return string(b)
		},
		"toPrettyJson": func(v any) string {
			b, _ := json.MarshalIndent(v, "", "  ")
			return string(b)
		},
		"toRawJson": func(v any) (string, error) {
			var sb strings.Builder
			enc := json.NewEncoder(&sb)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				return "", err
			}
			return strings.TrimSuffix(sb.String(), "\n"), nil
		},

		// Regular expressions (Go's RE2 syntax); an invalid pattern is an
		// error of the template's execution.
		"regexMatch": func(re, s string) (bool, error) { return regexp.MatchString(re, s) },
		"regexFind": func(re, s string) (string, error) {
			r, err := regexp.Compile(re)
			if err != nil {
				return "", err
			}
			return r.FindString(s), nil
		},
		"regexFindAll": func(re, s string, n int) ([]string, error) {
			r, err := regexp.Compile(re)
			if err != nil {
				return nil, err
			}
			return r.FindAllString(s, n), nil
		},
		"regexReplaceAll": func(re, s, repl string) (string, error) {
			r, err := regexp.Compile(re)
			if err != nil {
				return "", err
			}
			return r.ReplaceAllString(s, repl), nil
		},
	}
}

// indentLines prefixes every line of s with n spaces.
func indentLines(n int, s string) string {
	pad := strings.Repeat(" ", max(n, 0))
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// titleCase upper-cases the first letter of each word.
func titleCase(s string) string {
	prev := ' '
	return strings.Map(func(r rune) rune {
		start := unicode.IsSpace(prev) || unicode.IsPunct(prev)
		prev = r
		if start {
			return unicode.ToTitle(r)
		}
		return r
	}, s)
}

// substr is s[start:end] with Sprig's clamping: a negative start is 0, a
// negative or too large end is the end of s.
func substr(start, end int, s string) string {
	start = min(max(start, 0), len(s))
	if end < 0 || end > len(s) {
		end = len(s)
	}
	if end < start {
		return ""
	}
	return s[start:end]
}

// toString formats v as Sprig's toString does.
func toString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(v)
}

// toList turns a slice or array of any type into []any; anything else is
// a list of one.
func toList(v any) []any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		if v == nil {
			return nil
		}
		return []any{v}
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out
}

// toStrings is toList with each element formatted by toString, nils left out.
func toStrings(v any) []string {
	if s, ok := v.([]string); ok {
		return s
	}
	var out []string
	for _, x := range toList(v) {
		if x != nil {
			out = append(out, toString(x))
		}
	}
	return out
}

// listAt returns the i-th element (negative: from the end), or nil.
func listAt(v any, i int) any {
	l := toList(v)
	if i < 0 {
		i += len(l)
	}
	if i < 0 || i >= len(l) {
		return nil
	}
	return l[i]
}

// isEmpty reports whether v is its type's zero value, or an empty
// container, as Sprig's empty does.
func isEmpty(v any) bool {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return true
	}
	switch rv.Kind() {
	case reflect.Array, reflect.Slice, reflect.Map, reflect.String:
		return rv.Len() == 0
	case reflect.Bool:
		return !rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() == 0
	case reflect.Complex64, reflect.Complex128:
		return rv.Complex() == 0
	case reflect.Struct:
		return false
	case reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func:
		return rv.IsNil()
	}
	return false
}

// toInt64 converts numbers, numeric strings and booleans; anything else is 0.
func toInt64(v any) int64 {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		return int64(f)
	case reflect.Bool:
		if rv.Bool() {
			return 1
		}
	case reflect.String:
		s := strings.TrimSpace(rv.String())
		if n, err := strconv.ParseInt(s, 0, 64); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return int64(f)
		}
	}
	return 0
}

// toFloat64 converts as toInt64 does, keeping fractions.
func toFloat64(v any) float64 {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.String:
		f, _ := strconv.ParseFloat(strings.TrimSpace(rv.String()), 64)
		return f
	}
	return float64(toInt64(v))
}

// toTime turns a date argument into a time: a time.Time, a pointer to
// one, or seconds since the epoch; anything else is now, as in Sprig.
func toTime(v any) time.Time {
	switch t := v.(type) {
	case time.Time:
		return t
	case *time.Time:
		if t != nil {
			return *t
		}
	case int:
		return time.Unix(int64(t), 0)
	case int32:
		return time.Unix(int64(t), 0)
	case int64:
		return time.Unix(t, 0)
	}
	return time.Now()
}

// dateIn formats a date argument in the named zone (UTC if unknown).
func dateIn(layout string, t any, zone string) string {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.UTC
	}
	return toTime(t).In(loc).Format(layout)
}
