package report

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/template"
)

// A template in the style of gitleaks' own (its JSON-producing example):
// the list with a separator computed from len and sub, every field of
// gitleaks' finding by name, values through quote.
const gitleaksStyleTemplate = `[{{ $last := sub (len .) 1 }}
{{- range $i, $f := . }}{{ with $f }}
  {"RuleID": {{ quote .RuleID }}, "File": {{ quote .File }}, "SymlinkFile": {{ quote .SymlinkFile }},
   "StartLine": {{ .StartLine }}, "EndLine": {{ .EndLine }}, "StartColumn": {{ .StartColumn }}, "EndColumn": {{ .EndColumn }},
   "Line": {{ quote .Line }}, "Match": {{ quote .Match }}, "Secret": {{ quote .Secret }}, "Entropy": {{ printf "%.2f" .Entropy }},
   "Commit": {{ quote .Commit }}, "Link": {{ quote .Link }}, "Author": {{ quote .Author }}, "Email": {{ quote .Email }},
   "Date": {{ quote .Date }}, "Message": {{ quote .Message }}, "Fingerprint": {{ quote .Fingerprint }},
   "Tags": [{{ $lt := sub (len .Tags) 1 }}{{ range $j, $t := .Tags }}{{ quote $t }}{{ if ne $j $lt }},{{ end }}{{ end }}]}{{ if ne $i $last }},{{ end }}
{{- end }}{{ end }}
]
`

func TestTemplateReceivesFindingsWithGitleaksFieldNames(t *testing.T) {
	findings := sampleFindings()
	out := render(t, FormatTemplate, Options{Template: gitleaksStyleTemplate, RemoteURL: "https://github.com/acme/widgets"}, findings)
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("the template's output is not the JSON it writes: %v\n%s", err, out)
	}
	want := sortedCopy(findings)
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d", len(got), len(want))
	}
	for i, f := range want {
		g := got[i]
		if g["RuleID"] != f.RuleID || g["File"] != f.File || g["Secret"] != f.Secret || g["Match"] != f.Match ||
			g["StartLine"] != float64(f.Line) || g["StartColumn"] != float64(f.Column) || g["Commit"] != f.Commit ||
			g["Fingerprint"] != f.Fingerprint || g["Line"] != f.Match || g["SymlinkFile"] != "" {
			t.Errorf("finding %d = %v\nwant %+v", i, g, f)
		}
	}
	// The history finding links to its commit on the remote.
	if last := got[len(got)-1]; !strings.HasPrefix(last["Link"].(string), "https://github.com/acme/widgets/blob/"+findings[4].Commit+"/deploy/ci.yml#L2") {
		t.Errorf("Link = %q", last["Link"])
	}
}

func TestTemplateErrorsAreClear(t *testing.T) {
	_, err := NewWriter(FormatTemplate, &bytes.Buffer{}, Options{Template: "{{ env \"HOME\" }}"})
	if err == nil || !strings.Contains(err.Error(), `"env" not defined`) {
		t.Errorf("a function gitleaks removes (env) = %v, want a parse error naming it", err)
	}
	_, err = NewWriter(FormatTemplate, &bytes.Buffer{}, Options{Template: "{{ range . }"})
	if err == nil || !strings.HasPrefix(err.Error(), "report: template:") {
		t.Errorf("a malformed template = %v", err)
	}
	w, err := NewWriter(FormatTemplate, &bytes.Buffer{}, Options{Template: "{{ range . }}{{ .NoSuchField }}{{ end }}"})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(sampleFindings()[0])
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "NoSuchField") {
		t.Errorf("executing a bad field = %v", err)
	}
}

func TestTemplateFunctionsFollowSprig(t *testing.T) {
	tests := []struct{ tmpl, want string }{
		{`{{ quote "a\"b" 1 nil }}`, `"a\"b" "1"`},
		{`{{ squote "x" }}`, `'x'`},
		{`{{ "  x " | trim }}|{{ "xxhixx" | trimAll "x" }}|{{ "./a" | trimPrefix "./" }}|{{ "a.go" | trimSuffix ".go" }}`, `x|hi|a|a`},
		{`{{ "Hello" | upper }} {{ "Hello" | lower }} {{ "hello world" | title }}`, `HELLO hello Hello World`},
		{`{{ "abcdef" | trunc 3 }} {{ "abcdef" | trunc -2 }} {{ "abcdefghij" | abbrev 6 }}`, `abc ef abc...`},
		{`{{ substr 1 3 "abcdef" }} {{ substr 4 99 "abcdef" }}`, `bc ef`},
		{`{{ "ab" | repeat 3 }} {{ replace "a" "o" "banana" }} {{ cat "a" 1 nil "b" }}`, `ababab bonono a 1 b`},
		{`{{ "a b\tc" | nospace }} {{ contains "lo" "hello" }} {{ hasPrefix "he" "hello" }} {{ hasSuffix "x" "hello" }}`, `abc true true false`},
		{`{{ indent 2 "a\nb" }}|{{ nindent 1 "c" }}`, "  a\n  b|\n c"},
		{`{{ plural "file" "files" 1 }} {{ plural "file" "files" 2 }}`, `file files`},
		{`{{ add 1 2 "3" }} {{ sub 5 7 }} {{ mul 2 3 4 }} {{ div 7 2 }} {{ mod 7 2 }} {{ add1 9 }} {{ max 3 9 4 }} {{ min 3 9 4 }}`, `6 -2 24 3 1 10 9 3`},
		{`{{ atoi "12" }} {{ int "7" }} {{ int64 3.9 }} {{ float64 "2.5" }}`, `12 7 3 2.5`},
		{`{{ default "none" "" }} {{ default "none" "x" }} {{ empty 0 }} {{ empty "a" }} {{ coalesce "" 0 "z" }} {{ ternary "y" "n" true }}`, `none x true false z y`},
		{`{{ join "," (list "a" "b" 3) }} {{ first (list 1 2) }} {{ last (list 1 2) }} {{ has 2 (list 1 2) }} {{ join "," (sortAlpha (list "b" "a")) }} {{ len (uniq (list 1 1 2)) }}`, `a,b,3 1 2 true a,b 2`},
		{`{{ splitList "/" "a/b/c" | join "|" }}`, `a|b|c`},
		{`{{ $d := dict "k" "v" "n" 1 }}{{ get $d "k" }} {{ hasKey $d "n" }} {{ hasKey $d "x" }} {{ len (keys $d) }}`, `v true false 2`},
		{`{{ b64enc "hi" }} {{ b64dec "aGk=" }} {{ sha256sum "" | trunc 8 }} {{ sha1sum "" | trunc 8 }}`, `aGk= hi e3b0c442 da39a3ee`},
		{`{{ toJson (list "<a>" 1) }} {{ toRawJson (list "<a>") }}`, `["\u003ca\u003e",1] ["<a>"]`},
		{`{{ regexMatch "^a.c$" "abc" }} {{ regexFind "[0-9]+" "ab12c" }} {{ regexReplaceAll "[0-9]" "a1b2" "#" }} {{ len (regexFindAll "[a-z]" "abc" -1) }}`, `true 12 a#b# 3`},
		{`{{ dateInZone "2006-01-02 15:04" 0 "UTC" }} {{ (toDate "2006-01-02" "1970-01-02").Year }}`, `1970-01-01 00:00 1970`},
		{`{{ if gt (len (now | date "2006")) 3 }}ok{{ end }} {{ htmlDate 86400 | len }}`, `ok 10`},
	}
	for _, tt := range tests {
		tmpl, err := template.New("t").Funcs(templateFuncs()).Parse(tt.tmpl)
		if err != nil {
			t.Errorf("%s: %v", tt.tmpl, err)
			continue
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, nil); err != nil {
			t.Errorf("%s: %v", tt.tmpl, err)
			continue
		}
		if b.String() != tt.want {
			t.Errorf("%s = %q, want %q", tt.tmpl, b.String(), tt.want)
		}
	}
	tmpl := template.Must(template.New("t").Funcs(templateFuncs()).Parse(`{{ div 1 0 }}`))
	if err := tmpl.Execute(&strings.Builder{}, nil); err == nil || !strings.Contains(err.Error(), "divide by zero") {
		t.Errorf("div by zero = %v, want an error", err)
	}
	// As in gitleaks, a template reads neither the environment nor the
	// network; Sprig's other functions are all there.
	for _, name := range []string{"env", "expandenv", "getHostByName"} {
		if _, err := template.New("t").Funcs(templateFuncs()).Parse(`{{ ` + name + ` "HOME" }}`); err == nil || !strings.Contains(err.Error(), "not defined") {
			t.Errorf("%s: %v, want it not defined", name, err)
		}
	}
	for _, tt := range []struct{ tmpl, want string }{
		{`{{ base "a/b/c.go" }} {{ dir "a/b/c.go" }} {{ ext "c.go" }}`, `c.go a/b .go`},
		{`{{ split "/" "a/b" | toJson }}`, `{"_0":"a","_1":"b"}`},
		{`{{ (semver "1.2.3").Minor }} {{ semverCompare ">=1.2" "1.3.0" }}`, `2 true`},
		{`{{ $d := fromJson "{\"a\":{\"b\":1}}" }}{{ dig "a" "b" 0 $d }}`, `1`},
	} {
		tmpl, err := template.New("t").Funcs(templateFuncs()).Parse(tt.tmpl)
		if err != nil {
			t.Errorf("%s: %v", tt.tmpl, err)
			continue
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, nil); err != nil || b.String() != tt.want {
			t.Errorf("%s = %q, %v; want %q", tt.tmpl, b.String(), err, tt.want)
		}
	}
}

func TestTemplateRedactsAndSortsLikeTheOtherFormats(t *testing.T) {
	findings := sampleFindings()
	out := render(t, FormatTemplate, Options{Template: `{{ range . }}{{ .Secret }}|{{ end }}`, Redact: 100}, findings)
	if out != strings.Repeat("REDACTED|", len(findings)) {
		t.Fatalf("template redacted at 100 = %q", out)
	}
	out = render(t, FormatTemplate, Options{Template: `{{ range . }}{{ .File }}:{{ .StartLine }} {{ end }}`}, findings)
	want := ""
	for _, f := range sortedCopy(findings) {
		want += f.File + ":" + strconv.Itoa(f.Line) + " "
	}
	if out != want {
		t.Fatalf("template order = %q, want %q", out, want)
	}
}

// TestGitleaksOwnTemplatesRun renders the templates gitleaks ships (its
// report_templates and test templates), read from the Go module cache when
// gitleaks v8.30.1's module is there; skipped otherwise.
func TestGitleaksOwnTemplatesRun(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skip("no go command")
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "github.com", "zricethezav", "gitleaks", "v8@v8.30.1")
	paths, _ := filepath.Glob(filepath.Join(root, "report_templates", "*.tmpl"))
	more, _ := filepath.Glob(filepath.Join(root, "testdata", "report", "*.tmpl"))
	paths = append(paths, more...)
	if len(paths) == 0 {
		t.Skip("gitleaks' module is not in the module cache")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			text, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// gitleaks' JSON template writes File unquoted ("{{ .File }}"),
			// so the findings here have names without quotes.
			findings := slices.DeleteFunc(sampleFindings(), func(f Finding) bool { return strings.Contains(f.File, `"`) })
			out := render(t, FormatTemplate, Options{Template: string(text)}, findings)
			for _, f := range findings {
				if !strings.Contains(out, f.File) && !strings.Contains(out, template.HTMLEscapeString(f.File)) {
					t.Errorf("output lacks %s", f.File)
				}
			}
			if strings.HasSuffix(p, ".json.tmpl") || strings.Contains(p, "jsonextra") {
				if !json.Valid([]byte(out)) {
					t.Errorf("JSON template output is not JSON:\n%s", out)
				}
			}
		})
	}
}
