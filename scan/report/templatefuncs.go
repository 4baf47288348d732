package report

import (
	"text/template"

	"github.com/Masterminds/sprig/v3"
)

// templateFuncs are the functions a report template may call beyond
// text/template's own: the Sprig library's (github.com/Masterminds/sprig/v3,
// the version gitleaks v8.30.1 requires), wired as gitleaks wires them:
// sprig.TxtFuncMap() less env, expandenv and getHostByName, so that a
// template reads neither the environment nor the network, and a template
// written for gitleaks finds every function it may call.
func templateFuncs() template.FuncMap {
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	delete(funcs, "getHostByName")
	return funcs
}
