package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"text/template"
)

// templateWriter is the template format (--report-template FILE): a Go
// text/template executed once, at Close, over the sorted findings. The data
// is what gitleaks passes its templates, a list of findings with gitleaks'
// field names (RuleID, StartLine, File, Commit, Link, ...; see
// gitleaksFinding), and the functions are the Sprig library's, as gitleaks
// adds them (see templateFuncs), so a template written for gitleaks runs
// unchanged.
//
// A template may index or count the findings, so this format, alone among
// the sorted ones, holds every finding in memory until Close.
type templateWriter struct {
	w        io.Writer
	opts     Options
	remote   remoteInfo
	tmpl     *template.Template
	findings []Finding
	state    closeState
}

func newTemplateWriter(w io.Writer, opts Options, remote remoteInfo) (*templateWriter, error) {
	if opts.Template == "" {
		return nil, fmt.Errorf("report: the template format needs a template (--report-template)")
	}
	tmpl, err := template.New("report").Funcs(templateFuncs()).Parse(opts.Template)
	if err != nil {
		return nil, fmt.Errorf("report: template: %w", err)
	}
	return &templateWriter{w: w, opts: opts, remote: remote, tmpl: tmpl}, nil
}

func (t *templateWriter) Write(f Finding) error {
	if err := t.state.check(); err != nil {
		return err
	}
	t.findings = append(t.findings, prepare(f, t.opts))
	return nil
}

func (t *templateWriter) Close() error {
	return t.state.close(func() error {
		slices.SortFunc(t.findings, func(a, b Finding) int { return compareFindings(&a, &b) })
		data := make([]gitleaksFinding, len(t.findings))
		for i := range t.findings {
			data[i] = toGitleaks(&t.findings[i], t.remote)
		}
		t.findings = nil
		bw := bufio.NewWriter(t.w)
		if err := t.tmpl.Execute(bw, data); err != nil {
			return fmt.Errorf("report: template: %w", err)
		}
		return bw.Flush()
	})
}
