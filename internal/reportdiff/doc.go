// Package reportdiff compares reports in gitleaks' formats the way the
// tests that hold spindle's reports to gitleaks' need: two reports are the
// same when they hold the same findings, byte for byte, in any order, and
// the same text around them (headers, summaries, the document's frame).
//
// gitleaks writes its findings in the order its workers finish, so a
// report cannot be compared with a recorded one as a whole. Items names,
// for each format, where a finding's text begins and ends; SameUpToOrder
// replaces each finding with a placeholder, compares the frames, and
// compares the findings as sorted lists. It is used only by tests, and
// uses only the standard library.
package reportdiff
