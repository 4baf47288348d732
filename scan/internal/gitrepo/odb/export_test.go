package odb

// Dirs lists the objects directories reads go through: the primary one,
// then its alternates.
func (db *DB) Dirs() []string { return db.dirs }

// Stats counts the delta-base cache's use since Open.
type Stats struct {
	CacheHits   int64 // lookups that found the object
	CacheMisses int64 // lookups that did not (every read of an object looks once)
	CacheBytes  int64 // bytes held now, with the per-entry overhead
}

// Stats returns the counters.
func (db *DB) Stats() Stats {
	return Stats{
		CacheHits:   db.cache.hits.Load(),
		CacheMisses: db.cache.misses.Load(),
		CacheBytes:  db.cache.used.Load(),
	}
}

// Has reports whether the database holds id (packed or loose). It does
// not check that the object can be read.
func (db *DB) Has(id ID) bool {
	if _, _, ok := db.find(&id); ok {
		return true
	}
	return db.looseExists(id)
}

// Packs returns the database's packs, newest first. The slice is shared:
// do not modify it.
func (db *DB) Packs() []*Pack { return *db.packs.Load() }

// ParseCommit parses a commit object's content.
func ParseCommit(data []byte) (*Commit, error) { return ParseCommitLimit(data, -1) }

// ParseTree returns all the entries of a tree object's content, their ids
// hs bytes long.
func ParseTree(data []byte, hs int) ([]TreeEntry, error) { return AppendTree(nil, data, hs) }
