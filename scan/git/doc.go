// Package git scans a git repository for secrets: its whole history (Scan),
// what the next commit would record (Staged), or the work tree's unstaged
// changes (Unstaged). Each finding belongs to the commit that added the
// line it is on, with that commit's path, line and column, its author,
// email, date (RFC 3339, UTC) and subject, and gitleaks' fingerprint
// commit:file:rule:line, so .gitleaksignore files and baselines written
// for gitleaks apply unchanged.
//
//	st, err := git.Scan(ctx, "path/to/repo", git.Options{}, scan.Options{
//		Detector:  scan.Rules(det),
//		OnFinding: func(f report.Finding) { fmt.Println(f.Commit, f.File, f.Line) },
//	})
//
// # What is reported: gitleaks' findings, and more on purpose
//
// `gitleaks git` runs `git log -p -U0 --full-history --all` and scans, for
// every commit and every file, the lines the patch adds, hunk by hunk. The
// findings here are the same, finding for finding (commit, file, line,
// rule, secret), with the same config: a secret re-added later is reported
// again; a line that stays when other lines of its file change is not; a
// pure rename adds nothing. The tests compare both tools on a generated
// history and on real repositories.
//
// Two differences are deliberate. A merge commit's own lines (a conflict
// resolution, an "evil merge") are in no patch `git log -p` prints, so
// gitleaks never sees them (its issue #1028); here they are scanned from
// git's combined diff (--cc: lines new against every parent) and tagged
// report.TagMerge. And the message of a finding is the commit's subject
// line, where gitleaks puts the whole message.
//
// # How: each blob once, attribution only where there is a finding
//
// Scanning the patch stream, as gitleaks does, diffs every file of every
// commit in one process, and scans a change as many times as it appears
// (on every branch it was cherry-picked or rebased to). Scanning every
// blob of the object database, as Nosey Parker and Kingfisher do, reads
// each content once but then has to work out which commit introduced each
// blob, which is their slowest part. This package does neither in full:
//
//  1. Enumerate: one `git log --raw -M` process lists the commits and, per
//     commit, the files it changed with their blob ids before and after —
//     git's own commit walk, tree diffs and rename detection, the same as
//     the patches would use, without diffing a line. (--diff-merges=cc
//     lists a merge's files that differ from every parent.)
//  2. Scan: every distinct blob those changes introduce is read and
//     scanned once, on the engine's task graph (scan.ScanSources): frontier
//     permits, chunks with overlap, archives, budgets and statistics, on
//     every core. Pure renames, deletions and submodules are skipped; a
//     Git LFS pointer is skipped and counted. A blob with a finding is a
//     candidate.
//  3. Attribute: only the commits that introduced a candidate are diffed,
//     by git (`git log -p -U0 --no-walk` with their ids, --cc for merges),
//     and the lines each added to each candidate's path are scanned as
//     gitleaks scans them: one fragment per hunk, numbered from the hunk's
//     first new line. Those are the findings reported. A candidate whose
//     patch git calls binary (an archive) is scanned whole for each commit
//     that introduced it, as gitleaks does for archives.
//
// Step 3 decides "added in this commit" exactly as gitleaks does, with
// git's own diff (its algorithm, its heuristics, the user's
// diff.algorithm), so a candidate's findings are gitleaks' findings. Step
// 2 only chooses the candidates: a blob whose full text has no finding is
// taken to have none in any fragment of its lines. That holds but for a
// contrived rule whose match needs the absence of text before it (a line
// that matches alone but is swallowed by a longer match starting on an
// unchanged line above it); the comparison tests have found no such case
// with gitleaks' rules or the built-in ones.
//
// Sharding (scan.Options.Shard) splits the blobs of step 2 by id, so each
// candidate, and with it each finding, belongs to one shard.
//
// # Repositories as they are
//
// A work tree or a bare repository; REVISIONs as git rev-list takes them,
// or every ref. A shallow clone is scanned as far as it goes, with a
// warning that history is cut (its boundary commits look as if they added
// their whole tree, as they do to gitleaks). A missing object is a warning
// naming it, and the rest is scanned; if git log itself stops early, what
// it listed is scanned and the warning says history is cut. git runs with
// no transport allowed (GIT_ALLOW_PROTOCOL=none), so a partial clone never
// fetches. Submodules are not entered (a gitlink is a commit id, not a
// blob). git must be on PATH.
//
// Memory: the listing keeps one small record per commit and per changed
// file (paths interned); blobs are read and scanned chunk by chunk like
// files, under the frontier; the attribution streams git's patches. On
// the synthetic history of 20,003 commits (a 540 MiB pack, 2.5 GB of
// distinct blob content) the scan's own peak RSS was 222 MB, and git's
// 470 MB: git maps pack files in windows of up to 1 GiB and a walk of the
// whole history touches every page. The git commands run with
// core.packedGitWindowSize=16m and core.packedGitLimit=64m (git's peak:
// 155 MB, the time unchanged), and spindle git sets a 160 MiB soft limit
// on the Go heap unless GOMEMLIMIT is set (its peak: 177 MB, the time
// unchanged).
package git
