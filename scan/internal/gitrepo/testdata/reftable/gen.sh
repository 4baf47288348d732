#!/bin/sh
# gen.sh NAME FORMAT: NAME.git, a bare reftable repository made by a git
# that writes reftables (2.45 or later; $GIT, else git), and NAME.expected:
# git for-each-ref and HEAD as that git lists them. sha1.git and
# sha256.git were made by git 2.47.3 with "./gen.sh sha1 sha1" and
# "./gen.sh sha256 sha256".
set -e
G=${GIT:-git}
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@example.com GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@example.com GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
rm -rf w $1.git
$G init -q -b main --ref-format=reftable --object-format=$2 w
cd w
for i in 1 2 3; do echo "v$i" > f.txt; $G add f.txt; $G commit -qm c$i; $G branch b$i; done
$G tag -a -m annotated v-annotated HEAD~1
$G tag v-light HEAD~2
$G symbolic-ref refs/heads/alias refs/heads/b2
# Enough tags for several blocks, restart points and prefix compression.
i=0; while [ $i -lt 400 ]; do echo "create refs/tags/many/t$(printf %05d $i) HEAD~$((i%3))"; i=$((i+1)); done | $G update-ref --stdin
$G pack-refs --all
# Newer tables over the compacted one: an update, a deletion, a new ref.
$G branch -f b1 HEAD
$G branch -D b3
$G branch late HEAD~2
$G update-ref refs/tags/many/t00007 HEAD
cd ..
mv w/.git $1.git
$G --git-dir=$1.git config core.bare true
$G --git-dir=$1.git gc -q --no-prune 2>/dev/null || true
rm -rf $1.git/hooks $1.git/description $1.git/info $1.git/logs $1.git/COMMIT_EDITMSG $1.git/index
ls $1.git/reftable
$G --git-dir=$1.git for-each-ref --format='%(refname) %(objectname)' > $1.expected
echo "HEAD $($G --git-dir=$1.git rev-parse HEAD)" >> $1.expected
rm -rf w
