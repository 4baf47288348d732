// Package linediff is git's line diff, exact: for two versions of a file,
// the hunks `git diff -U0` prints, at the places git prints them.
package linediff
