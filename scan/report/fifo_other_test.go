//go:build !unix

package report

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs on this system") }
