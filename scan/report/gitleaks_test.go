package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The files in testdata/gitleaks are reports written by gitleaks v8.30.1
// itself (`gitleaks dir` on a small tree, `gitleaks git --platform P` on a
// two-commit repository whose remote is git@github.com:acme/widgets.git),
// so the tests below compare against gitleaks' real output rather than
// against this package's reading of its code.

// sameElements compares two gitleaks reports byte for byte, element by
// element, ignoring only the order of the elements (gitleaks lists findings
// in the order its workers found them; this package sorts them).
func sameElements(t *testing.T, got, want []byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("report is %d bytes, gitleaks wrote %d", len(got), len(want))
	}
	if !bytes.HasPrefix(got, []byte("[\n {\n")) || !bytes.HasSuffix(got, []byte("\n }\n]\n")) {
		t.Errorf("report framing differs from gitleaks':\n%s", got)
	}
	elements := func(doc []byte) []string {
		var raw []json.RawMessage
		if err := json.Unmarshal(doc, &raw); err != nil {
			t.Fatalf("not a JSON array: %v\n%s", err, doc)
		}
		out := make([]string, len(raw))
		for i, r := range raw {
			out[i] = string(r)
		}
		slices.Sort(out)
		return out
	}
	g, w := elements(got), elements(want)
	if !slices.Equal(g, w) {
		t.Fatalf("elements differ from gitleaks':\n got %s\nwant %s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}

func TestGitleaksFormatReproducesGitleaksReports(t *testing.T) {
	tests := []struct{ file, platform string }{
		{"dir.json", ""},
		{"git-github.json", "github"},
		{"git-gitlab.json", "gitlab"},
		{"git-azuredevops.json", "azuredevops"},
		{"git-gitea.json", "gitea"},
		{"git-bitbucket.json", "bitbucket"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			golden, err := os.ReadFile(filepath.Join("testdata", "gitleaks", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			findings := readAll(t, string(golden))
			opts := Options{RemoteURL: "git@github.com:acme/widgets.git", Platform: tt.platform}
			out := render(t, FormatGitleaks, opts, findings)
			sameElements(t, []byte(out), golden)
		})
	}
}

func TestGitleaksCSVReproducesGitleaksReports(t *testing.T) {
	for _, tt := range []struct{ json, csv, platform string }{
		{"dir.json", "dir.csv", ""},
		{"git-github.json", "git-github.csv", "github"},
	} {
		t.Run(tt.csv, func(t *testing.T) {
			golden, err := os.ReadFile(filepath.Join("testdata", "gitleaks", tt.json))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "gitleaks", tt.csv))
			if err != nil {
				t.Fatal(err)
			}
			out := render(t, FormatGitleaksCSV, Options{RemoteURL: "git@github.com:acme/widgets.git", Platform: tt.platform}, readAll(t, string(golden)))
			// Rows in any order: gitleaks lists them as found.
			rows := func(doc string) []string {
				recs, err := csv.NewReader(strings.NewReader(doc)).ReadAll()
				if err != nil {
					t.Fatalf("%v\n%s", err, doc)
				}
				var out []string
				for _, r := range recs {
					out = append(out, strings.Join(r, "\x00"))
				}
				slices.Sort(out[1:])
				return out
			}
			if len(out) != len(want) || !slices.Equal(rows(out), rows(string(want))) {
				t.Fatalf("csv differs from gitleaks':\n%s\nwant\n%s", out, want)
			}
		})
	}
	if out := render(t, FormatGitleaksCSV, Options{}, nil); out != "" {
		t.Errorf("an empty gitleaks csv report = %q, want nothing, as gitleaks", out)
	}
}

func TestGitleaksLinksRecogniseThePlatformFromTheHost(t *testing.T) {
	f := Finding{File: "a b/x.go", Line: 3, EndLine: 3, Commit: "abc123"}
	tests := []struct{ remote, platform, want string }{
		{"https://github.com/o/r.git", "", "https://github.com/o/r/blob/abc123/a%20b/x.go#L3"},
		{"git@gitlab.com:g/sub/r.git", "", "https://gitlab.com/g/sub/r/blob/abc123/a%20b/x.go#L3"},
		{"https://user:token@codeberg.org/o/r", "", "https://codeberg.org/o/r/src/commit/abc123/a%20b/x.go#L3"},
		{"https://bitbucket.org/o/r", "", "https://bitbucket.org/o/r/src/abc123/a%20b/x.go#lines-3"},
		{"https://git.example.com/o/r", "", ""},                                                            // unknown host: no link
		{"https://git.example.com/o/r", "gitlab", "https://git.example.com/o/r/blob/abc123/a%20b/x.go#L3"}, // named
		{"https://github.com/o/r", "none", ""},
		{"", "github", ""},
	}
	for _, tt := range tests {
		remote, err := parseRemote(tt.remote, tt.platform)
		if err != nil {
			t.Fatal(err)
		}
		if got := remote.link(&f); got != tt.want {
			t.Errorf("link(%q, %q) = %q, want %q", tt.remote, tt.platform, got, tt.want)
		}
	}
	if got := (remoteInfo{url: "https://github.com/o/r", platform: platformGitHub}).link(&Finding{File: "a.zip!k.env", Line: 2, EndLine: 2, Commit: "c"}); got != "https://github.com/o/r/blob/c/a.zip" {
		t.Errorf("archive member link = %q, want the archive", got)
	}
	if got := (remoteInfo{url: "https://github.com/o/r", platform: platformGitHub}).link(&Finding{File: "x", Line: 2, EndLine: 2}); got != "" {
		t.Errorf("a finding outside history got a link: %q", got)
	}
	if _, err := NewWriter(FormatGitleaks, &bytes.Buffer{}, Options{Platform: "sourceforge"}); err == nil {
		t.Error("an unknown platform is accepted")
	}
}

func TestGitleaksFormatWritesDatesInUTCAsGitleaks(t *testing.T) {
	f := sampleFindings()[4]
	f.Date = "2024-03-01T10:00:00+02:00"
	got := decodeGitleaks(t, render(t, FormatGitleaks, Options{}, []Finding{f}))
	if got[0].Date != "2024-03-01T08:00:00Z" {
		t.Fatalf("Date = %q, want gitleaks' UTC form", got[0].Date)
	}
}

// gitleaksBinary is the gitleaks to compare with, or "" when none is
// installed.
func gitleaksBinary() string {
	if p, err := exec.LookPath("gitleaks"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, "go", "bin", "gitleaks")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// TestGitleaksFormatMatchesTheGitleaksBinary runs gitleaks on a tree and a
// repository made here and checks that this package, given gitleaks'
// findings, writes gitleaks' report. It is skipped where gitleaks or git is
// not installed, and in -short mode (gitleaks takes seconds to start).
func TestGitleaksFormatMatchesTheGitleaksBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gitleaks; the reports in testdata/gitleaks cover -short")
	}
	bin := gitleaksBinary()
	if bin == "" {
		t.Skip("gitleaks is not installed")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	files := map[string]string{
		"app.env":              "AWS_KEY=AKIAZ7QKXW3VUMPLR2TD\n",
		"sub/we<i>rd & co.txt": "x\ntoken: ghp_Zq0123456789abcdefABCDEF0123456789ab\n",
		"docs/read me.md":      "y\ntoken: ghp_Yq0123456789abcdefABCDEF0123456789ab\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2024-03-01T10:00:00+02:00", "GIT_COMMITTER_DATE=2024-03-01T10:00:00+02:00",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("remote", "add", "origin", "https://github.com/acme/widgets.git")
	git("add", "-A")
	git("-c", "user.name=Ann Example", "-c", "user.email=ann@example.com", "commit", "-q", "-m", "add <keys> & more\n\nbody")

	for _, mode := range []string{"dir", "git"} {
		t.Run(mode, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "gitleaks.json")
			cmd := exec.Command(bin, mode, ".", "--report-format", "json", "--report-path", report, "--no-banner", "--exit-code", "0")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("gitleaks: %v\n%s", err, out)
			}
			golden, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			findings := readAll(t, string(golden))
			if len(findings) < len(files) {
				t.Fatalf("gitleaks found %d findings, the test planted %d", len(findings), len(files))
			}
			out := render(t, FormatGitleaks, Options{RemoteURL: "https://github.com/acme/widgets.git"}, findings)
			sameElements(t, []byte(out), golden)
		})
	}
}
