package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"slices"
	"strings"
	"testing"
)

// zipOf returns a zip archive holding files (name → content).
func zipOf(t *testing.T, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[name]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// tarGzOf returns a gzip-compressed tar archive holding files.
func tarGzOf(t *testing.T, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range sortedKeys(files) {
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// gzipOf returns content compressed as one gzip stream.
func gzipOf(t *testing.T, content string) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.Write([]byte(content))
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestScanFindsSecretsInsideArchives(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	line := func(i int) string { return "key = " + token(i) + "\n" }
	writeTree(t, root, map[string]string{
		".gitleaks.toml": testRules,
		"secrets.zip":    zipOf(t, map[string]string{"dir/a.env": line(10), "clean.txt": "nothing\n"}),
		"bundle.tar.gz": tarGzOf(t, map[string]string{
			"inner.zip": zipOf(t, map[string]string{"x.env": line(11)}),
			"top.txt":   "filler\n" + line(12),
		}),
		"notes.txt.gz": gzipOf(t, line(13)),
		"broken.zip":   "PK\x03\x04" + strings.Repeat("\xff", 64),
	})
	tests := []struct {
		name  string
		depth string
		want  []string // files of the findings
		lost  bool     // a budget hit lost data: exit 2
	}{
		{"default depth", "", []string{"bundle.tar.gz!inner.zip!x.env", "bundle.tar.gz!top.txt", "notes.txt.gz", "secrets.zip!dir/a.env"}, false},
		{"depth 1 opens no archive inside an archive", "--archive-depth=1", []string{"bundle.tar.gz!top.txt", "notes.txt.gz", "secrets.zip!dir/a.env"}, true},
		{"depth 0 turns archives off", "--archive-depth=0", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"scan", "-f", "json"}
			if tt.depth != "" {
				args = append(args, tt.depth)
			}
			r := invoke(t, root, append(args, ".")...)
			var got []string
			for _, f := range parseJSON(t, r.stdout) {
				got = append(got, f.File)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings in %q, want %q\nstderr:\n%s", got, tt.want, r.stderr)
			}
			wantCode := 0
			switch {
			case tt.lost:
				// The depth budget left inner.zip unread: lost data.
				wantCode = 2
				if !strings.Contains(r.stderr, "the scan lost data: 1 warning") || !strings.Contains(r.stderr, "bundle.tar.gz!inner.zip") {
					t.Errorf("the lost data not named:\n%s", r.stderr)
				}
			case len(tt.want) > 0:
				wantCode = 1
			}
			if r.code != wantCode {
				t.Errorf("exit %d, want %d: a broken archive is a warning of noise, not an error\n%s", r.code, wantCode, r.stderr)
			}
			if tt.depth == "" && !strings.Contains(r.stderr, "broken.zip") {
				t.Errorf("no warning for broken.zip:\n%s", r.stderr)
			}
		})
	}
}
