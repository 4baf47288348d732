package rules

// Allowlists may name commits. A directory scan has none, so Scan never
// lets such a list pass; a history scan knows each finding's commit and
// asks CommitAllows about it, once per commit that makes the change.

// HasCommitAllowlists reports whether any allowlist, global or of a rule,
// names commits: a history scan need not ask CommitAllows otherwise.
func (d *Detector) HasCommitAllowlists() bool { return d.commitAllowlists }

// hasCommitAllowlists works out HasCommitAllowlists once, at compile time:
// a history scan asks for every change.
func (d *Detector) hasCommitAllowlists() bool {
	for _, a := range d.global {
		if a.commits {
			return true
		}
	}
	for _, r := range d.rules {
		for _, a := range r.allow {
			if a.commits {
				return true
			}
		}
	}
	return false
}

// CommitAllows reports whether an allowlist that names commits drops the
// finding of rule ruleID at path with secret and match in commit, as
// gitleaks decides it: a list with condition OR drops every finding of a
// commit it names (a global one for every rule, a rule's own for that
// rule); one with condition AND drops it when the commit is named and
// every other check the list has passes (its path regexes on path, its
// regexes on the secret or the match as regexTarget says, a "line" target
// being checked on the match, and its stop words on the secret).
func (d *Detector) CommitAllows(commit, ruleID, path string, secret, match []byte) bool {
	lists := d.global
	if i, ok := d.byID[ruleID]; ok {
		lists = append(lists[:len(lists):len(lists)], d.rules[i].allow...)
	}
	for _, a := range lists {
		if !a.commitSet[commit] {
			continue
		}
		if !a.and {
			return true
		}
		if a.paths != nil && !a.paths.MatchString(path) {
			continue
		}
		if a.regexes != nil {
			target := secret
			if a.target == "match" || a.target == "line" {
				target = match
			}
			if !a.regexPasses(target) {
				continue
			}
		}
		if a.stopCheck && !a.hasStopword(secret) {
			continue
		}
		return true
	}
	return false
}
