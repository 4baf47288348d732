package gitrepo

import (
	"fmt"
	"maps"
	"strings"

	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// Objects is a repository's object database as git reads it: its objects
// directory (or GIT_OBJECT_DIRECTORY), the alternates that names and
// those of GIT_ALTERNATE_OBJECT_DIRECTORIES, and the replacements that
// refs/replace/ declares (unless GIT_NO_REPLACE_OBJECTS or
// core.useReplaceRefs=false): reading a replaced object reads its
// replacement, as every git command does.
type Objects struct {
	*odb.DB
	replace map[odb.ID]odb.ID
}

// OpenObjects opens the object database. Damage that leaves the rest
// readable (a pack index that does not parse, an alternate that is not a
// directory, a replace ref that is not an object id) is in warnings.
func (r *Repo) OpenObjects(opt odb.Options) (o *Objects, warnings []error, err error) {
	opt.HashSize = r.HashSize
	opt.Alternates = append(append([]string(nil), r.Alternates...), opt.Alternates...)
	db, err := odb.Open(r.ObjectsDir, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.GitDir, err)
	}
	o = &Objects{DB: db}
	warnings = append(warnings, db.Warnings()...)
	if !r.NoReplaceObjects() {
		refs, w := r.RefsUnder("refs/replace/")
		warnings = append(warnings, w...)
		for _, ref := range refs {
			hex, ok := strings.CutPrefix(ref.Name, "refs/replace/")
			if !ok {
				continue
			}
			from, err1 := odb.ParseID(hex)
			to, err2 := odb.ParseID(ref.ID)
			if err1 != nil || err2 != nil {
				warnings = append(warnings, fmt.Errorf("gitrepo: %s is not a replacement of one object id by another", ref.Name))
				continue
			}
			if o.replace == nil {
				o.replace = map[odb.ID]odb.ID{}
			}
			o.replace[from] = to
		}
	}
	return o, warnings, nil
}

// maxReplaceDepth is how many replacements a lookup follows (git's limit).
const maxReplaceDepth = 5

// Replacement returns the object read in place of id: id itself unless a
// replace ref names it (followed up to git's depth).
func (o *Objects) Replacement(id odb.ID) odb.ID {
	for range maxReplaceDepth {
		to, ok := o.replace[id]
		if !ok {
			break
		}
		id = to
	}
	return id
}

// Read reads an object, replaced as refs/replace says.
func (o *Objects) Read(id odb.ID, buf []byte) (odb.Type, []byte, error) {
	return o.DB.Read(o.Replacement(id), buf)
}

// Header reads an object's type and size, replaced as refs/replace says.
func (o *Objects) Header(id odb.ID) (odb.Type, int64, error) {
	return o.DB.Header(o.Replacement(id))
}

// Reader streams an object, replaced as refs/replace says.
func (o *Objects) Reader(id odb.ID) (*odb.Reader, error) {
	return o.DB.Reader(o.Replacement(id))
}

// Size returns an object's size (see odb.DB.Size), replaced as
// refs/replace says.
func (o *Objects) Size(id odb.ID) (int64, error) {
	return o.DB.Size(o.Replacement(id))
}

// ReadLimit reads an object of at most limit bytes (see odb.DB.ReadLimit),
// replaced as refs/replace says.
func (o *Objects) ReadLimit(id odb.ID, buf []byte, limit int64) (odb.Type, []byte, error) {
	return o.DB.ReadLimit(o.Replacement(id), buf, limit)
}

// Replacing reports whether refs/replace replaces any object (git then
// ignores the commit-graph).
func (o *Objects) Replacing() bool { return len(o.replace) > 0 }

// Replacements returns the replacements refs/replace declares, by the id
// replaced (none when replace refs are off): what a scan's results
// depend on beyond the ids it reads.
func (o *Objects) Replacements() map[odb.ID]odb.ID { return maps.Clone(o.replace) }
