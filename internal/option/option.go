// Package option holds what every command's settings share: an error that
// names the command-line flag a setting came from, and the parsers of list
// and key=value flags.
//
// Library packages validate their own option types and return *Error, so
// that a command only binds flags to fields and prints what comes back,
// and a message still names the flag a user typed.
package option

import (
	"errors"
	"fmt"
	"strings"
)

// Error is a setting that cannot be used. Flags names it as the command
// line does, without dashes: one flag ("capacity"), or several when the
// error is their combination ("xi-ms", "xi-tokens").
type Error struct {
	Flags []string
	Err   error
}

// Error renders "flag --capacity: reason" or "flags --a and --b: reason".
func (e *Error) Error() string {
	dashed := make([]string, len(e.Flags))
	for i, f := range e.Flags {
		dashed[i] = "--" + f
	}
	switch len(dashed) {
	case 0:
		return e.Err.Error()
	case 1:
		return "flag " + dashed[0] + ": " + e.Err.Error()
	default:
		return "flags " + strings.Join(dashed[:len(dashed)-1], ", ") + " and " + dashed[len(dashed)-1] + ": " + e.Err.Error()
	}
}

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error for flag with a formatted reason; %w in format
// wraps as fmt.Errorf does.
func Errorf(flag, format string, a ...any) error {
	return &Error{Flags: []string{flag}, Err: fmt.Errorf(format, a...)}
}

// Wrap names flag as the source of err; nil stays nil. An err that already
// names a flag is returned unchanged, so that the innermost name wins.
func Wrap(flag string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Flags: []string{flag}, Err: err}
}

// Both returns the error for two flags that cannot be given together.
func Both(a, b, reason string) error {
	return &Error{Flags: []string{a, b}, Err: errors.New(reason)}
}
