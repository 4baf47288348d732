package report

import (
	"bufio"
	"io"
)

// sortedFormat is what a sorted writer asks of one format. The writer owns
// the order, the bounded buffering and the error bookkeeping; a format only
// turns findings into bytes.
type sortedFormat interface {
	// entry prepares f for the report: redaction, normalisation, and what
	// the format derives from the unredacted finding. It sees every finding
	// in Write order, so a format also gathers its totals here (SARIF's
	// rule table, junit's counts).
	entry(f Finding) entry
	// begin writes the fixed opening of the report, before any finding.
	begin(w *bufio.Writer) error
	// finding writes one finding; findings come in order.
	finding(w *bufio.Writer, e *entry) error
	// end writes what follows the last finding.
	end(w *bufio.Writer) error
}

// incompleteFormat is a sortedFormat that can finish the report of a run
// that did not complete and say so in it (see CloseIncomplete);
// markIncomplete returns whether the report is to be finished.
type incompleteFormat interface {
	markIncomplete() bool
}

// sortedWriter is the Writer of every sorted format: it writes the format's
// opening at the first Write, so that a destination that cannot be written
// fails the scan at once rather than after the last finding, buffers
// findings in a spillSorter, and writes them in order at Close.
type sortedWriter struct {
	w      io.Writer
	bw     *bufio.Writer
	format sortedFormat
	sorter *spillSorter
	begun  bool
	state  closeState
}

func newSortedWriter(w io.Writer, opts Options, cmp func(a, b *Finding) int, format sortedFormat) *sortedWriter {
	return &sortedWriter{
		w:      w,
		bw:     bufio.NewWriterSize(w, 64<<10),
		format: format,
		sorter: newSpillSorter(cmp, opts.TempDir, opts.spillAt),
	}
}

// begin writes the opening once and pushes it to the destination.
func (s *sortedWriter) begin() error {
	if s.begun {
		return nil
	}
	s.begun = true
	if err := s.format.begin(s.bw); err != nil {
		return err
	}
	return s.bw.Flush()
}

func (s *sortedWriter) Write(f Finding) error {
	if err := s.state.check(); err != nil {
		return err
	}
	if err := s.begin(); err != nil {
		s.sorter.release()
		return s.state.fail(err)
	}
	if err := s.sorter.add(s.format.entry(f)); err != nil {
		s.sorter.release()
		return s.state.fail(err)
	}
	return nil
}

func (s *sortedWriter) Close() error {
	defer s.sorter.release()
	return s.state.close(func() error {
		if err := s.begin(); err != nil {
			return err
		}
		err := s.sorter.drain(func(e *entry) error { return s.format.finding(s.bw, e) })
		if err != nil {
			return err
		}
		if err := s.format.end(s.bw); err != nil {
			return err
		}
		return s.bw.Flush()
	})
}

// closeIncomplete is CloseIncomplete: it finishes the report if the format
// can mark it incomplete, else releases the findings and writes nothing.
func (s *sortedWriter) closeIncomplete() (bool, error) {
	if f, ok := s.format.(incompleteFormat); ok && f.markIncomplete() {
		return true, s.Close()
	}
	s.sorter.release()
	err := s.state.close(func() error { return s.bw.Flush() })
	return false, err
}
