// Package git scans a git repository for secrets: its whole history (Scan),
// what the next commit would record (Staged), or the work tree's unstaged
// changes (Unstaged), each a method of a Repository (Open finds and opens
// it once) and a function that opens one for a single scan. Each finding
// belongs to the commit whose patch adds the line it is on, with that
// commit's path, line and column, its author, email, date (RFC 3339, UTC)
// and subject, and gitleaks' fingerprint commit:file:rule:line, so
// .gitleaksignore files and baselines written for gitleaks apply
// unchanged. As the package's Example runs it:
//
//	repo, err := git.Open("path/to/repo")
//	...
//	defer repo.Close()
//	st, err := repo.Scan(ctx, git.Options{}, scan.Options{
//		Detector:  scan.Rules(det),
//		OnFinding: func(f report.Finding) { fmt.Println(f.Commit, f.File, f.Line) },
//	})
//
// # What is reported: gitleaks' findings, and more on purpose
//
// `gitleaks git` runs `git log -p -U0 --full-history --all
// --diff-filter=tuxdb` and scans, for every commit and every file, the
// lines the patch adds, hunk by hunk: each hunk's added lines are one
// fragment, numbered from the hunk's first new line. The findings here are
// the same, finding for finding (commit, file, line, rule, secret), with
// the same config: a line moved, re-indented or rewritten in place is
// added again, as git's diff shows it; a pure rename adds nothing and a
// rename with edits adds its edits; a deleted file adds nothing; a change
// git calls binary adds nothing unless its path names an archive, which
// is then scanned whole (when archives are open). The tests compare the
// two tools on histories built to hold each of these cases, on generated
// histories and on real repositories, and check every history against
// git's own patches even where gitleaks is not installed.
//
// Two differences are deliberate. A merge commit's own lines (a conflict
// resolution, an "evil merge") are in no patch `git log -p` prints, so
// gitleaks never sees them (its issue #1028); here the lines of a merge's
// file that are new against every parent (git's --cc) are scanned and
// their findings tagged report.TagMerge. And the message of a finding is
// the commit's subject line (at most 4 KiB of it), where gitleaks puts the
// whole message.
//
// # How: the diff family, in process
//
// No git process runs. The repository is found and read by package
// gitrepo (work trees, bare repositories, .git files, linked work trees,
// alternates, git's environment variables, refs/replace, shallow clones)
// and its objects by package odb (packs and loose objects, deltas through
// a shared base cache). A scan has three steps:
//
//  1. Walk (revisions.go, revparse.go, walk.go): the commits the
//     selection names, in git log's order (newest committer date
//     first), with its filters: ranges and exclusions, ref families,
//     --since and --until, --no-merges, --first-parent, --max-count,
//     --author. Only each commit's tree, parents and date are read.
//  2. Tree diffs (treediff.go, renames.go, changes.go): each commit's
//     tree against its parent's, by object id, entering only the
//     subtrees whose ids differ, in parallel on the runtime's workers,
//     each batch of commits as soon as the walk has listed it (the walk
//     reads commit after commit on one goroutine).
//     Rename detection is git's default: exact renames, then pairs whose
//     file names are unique on both sides if 75% similar, then the
//     similarity matrix down to 50% within git's rename limit, with git's
//     similarity estimate and its tie-breaks. A merge's files are those
//     that differ from every parent: its diff against the first parent
//     walks the other parents' trees beside it and leaves out every file
//     or directory one of them holds as is.
//  3. Line diffs (units.go): the changes are grouped by what they do, so
//     that the same old and new blob at the same path (a cherry-pick, a
//     rebase, the same edit on two branches) is diffed and scanned once
//     and its findings reported for each commit that makes it. Each
//     distinct change is diffed with git's own algorithm (package
//     linediff: Myers with git's heuristics, its trimming of the common
//     tail, its indent heuristic for hunk placement), and each hunk's
//     added lines go to the engine's Fetch and Scan tasks as one fragment,
//     scanned in one buffer as gitleaks scans it (a megabyte of minified
//     code on one line is one line to the line allowlists) up to 8 MiB,
//     and in chunks beyond, where working memory must stay bounded.
//
// Most changes cannot hold a finding. Before diffing a change, the part of
// the new file that any hunk could add lines in (everything but the common
// prefix and suffix of the two files, widened across lines that repeat its
// own, since git slides changes over such lines) is asked of the detector
// (scan.MayFinder): when no keyword of any rule occurs in it, no encoded
// text could decode into one, and no path rule applies, the change adds
// nothing to report and is not diffed. A merge's change is asked the
// same of its region against the first parent (a line added against
// every parent is added against the first). The same question is asked
// of each fragment before it is scanned.
//
// Sharding (scan.Options.Shard) splits the commits: each commit, and so
// each finding, belongs to one shard, and n shards merged are the whole
// scan exactly.
//
// # Incremental scans
//
// With Options.Cache, a scan keeps what each commit yields in a store (see
// Cache): the commit's findings before the .gitleaksignore files, the
// baseline and redaction apply, by commit id, under a key of every setting
// that changes them (storeKey: the rules as resolved, their settings, the
// archive and size settings, the selection's diff options, the
// repository's object replacements, the code's version). A later scan
// walks its selection as any scan does, reports the stored findings of the
// commits the store holds through the engine (so the ignore lists, the
// baseline and the counts apply as to new ones), and diffs and scans only
// the others: its findings are the full scan's, whatever the store holds,
// since a commit's findings depend on nothing but the commit, its parents'
// trees and the settings. A force push, a rebase or a deleted branch needs
// nothing: the walk of the refs as they are decides what is reported, and
// a commit the store holds but no ref reaches is not. What a warning
// concerns (an object that could not be read, a path left out) and a
// shallow clone's boundary commits are never stored, and a scan that did
// not complete stores nothing. The store is a directory of segment files
// written whole and renamed into place (store.go): scans killed at any
// point or run at once never leave a half-written store, and one that does
// not check out (damaged, foreign, of another format) is a warning and a
// full scan.
//
// A scan of all that some tips reach (every ref, or plain revisions such
// as HEAD: no range, exclusion, filter or limit; one shard) skips even the
// walk of what it has seen. The store records the last such selection:
// the commits its walk started from, how many commits they reach, and the
// segments that hold exactly those commits (a full walk writes them as one
// segment; commits no ref reaches any more go to an attic segment, kept
// until the next merge, for a branch that comes back). The next scan walks
// from the refs as they are but stops at every recorded commit: a
// commit's history is fixed by its id, so what it walks is exactly what
// the new tips reach and the old did not. If every old tip is still
// reached (a tip still, or met by the walk), the selection is the old one
// plus the commits walked; otherwise (a force push, a deleted ref) the
// whole history is walked as without a record. On prometheus' 46,219
// commits a re-scan with nothing new then reads the refs, the store and
// the commits with findings: 0.15 s where the walk alone took 1.1 s. The
// record is written after the segments it names and used only while they
// are all there, so a killed scan or two at once cost the shortcut, never
// a finding.
//
// # Repositories as they are
//
// A shallow clone is scanned as far as it goes, with a warning that
// history is cut: its boundary commits add their whole tree, as they do
// to gitleaks. A missing or damaged object costs that object alone: a
// warning names it with the commit and path that needed it, and every
// other change is scanned (a commit whose parent is missing is scanned as
// adding its whole tree, so nothing it holds is lost). An object the
// scan was about to call missing is first looked for in packs that
// appeared since the scan began (a repack or gc running beside it).
// Submodules are not entered: a gitlink's change is the line
// "Subproject commit <id>", as git's patch shows it. Every such warning is
// of lost data (scan.Warning.Lost, counted in Stats.Lost): the caller
// (the command) fails a scan that has any unless told to accept a partial
// result. A .gitleaksignore that cannot be read (a link to a FIFO or a
// device, never opened) is one too, and the scan goes on without it.
//
// A partial clone's missing objects are fetched from its promisor remote
// before the walk (promisor.go), by a git child that runs nothing the
// repository's configuration names; what cannot be fetched is a warning
// of lost data. A commit's author, email and subject are decoded from its
// encoding header to UTF-8, as git log prints them.
//
// Nothing a repository's configuration names is run: no textconv, filter,
// fsmonitor, external diff, pager or hook (git runs textconv drivers for
// `git log -p`; this package diffs the blobs as stored). The user's and
// the system's git configuration are not read either: the diff is git's
// default one (myers, indent heuristic, renames on, rename limit 1000).
//
// Every repository format git writes is read (through package gitrepo):
// SHA-1 and SHA-256 object names (a SHA-256 history's commits are named
// by 64 hex digits in findings and fingerprints), loose and packed refs
// and reftables, split indexes, commit-graphs (not used when their
// checksum fails: the walk then reads the commits themselves). The tests
// compare SHA-256 histories with gitleaks and with the same history in
// SHA-1, and read reftables git 2.47 wrote. Millions of refs cost time and
// memory linear in their number: each ref's object is peeled once, each
// commit is a starting point once.
//
// Memory: the walk keeps a small record per commit, the tree diffs one
// record per file change (a distinct change costs about 40 bytes more,
// the changes of a path share one string), and each worker diffing holds
// the two blobs of one change. The fragments waiting for the engine are
// bounded too: a few lanes diff batches of changes, each listing its next
// batch only once the engine has admitted the last, and 32 fragments a
// worker are admitted at a time (prometheus' history, 46,219 commits,
// peaks at about 200 MiB of RSS). A blob over git's big-file threshold (512 MiB), or a pack
// entry or delta that claims to be, is binary to git and is not read: a
// warning of lost data names it (gitleaks skips it silently). Objects are
// built in memory only below odb's size budget (128 MiB), so a crafted
// delta that declares gigabytes is a warning, not an allocation; a larger
// one is streamed, its base spilled to a temporary file. A change whose
// side is over 64 MiB is not diffed in memory: its new version is scanned
// whole, every line as if added (a warning of noise says so), so nothing
// it adds is missed and what it kept is reported again.
//
// # Staged and unstaged changes
//
// Staged compares the index with HEAD's tree by object id (what `git diff
// --staged` shows), Unstaged the work tree's tracked files with the index
// (what `git diff` shows), trusting the index's recorded size and time for
// unchanged files as git does. Both then go through the same rename
// detection, line diffs and fragments as history. A tracked symbolic link
// is its target's path, as git records it; a tracked path that has become
// a FIFO or a device is a warning, never opened for reading.
package git
