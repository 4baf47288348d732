package gitrepo

func (r *Repo) reftableRefsUnder(prefix string) ([]Ref, []error) { return nil, nil }
func (r *Repo) reftableReadRef(name string) (string, error)      { return "", nil }
