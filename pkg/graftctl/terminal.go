package graftctl

import (
	"io"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
)

// TerminalSafe returns the streams with Out and ErrOut escaping terminal
// control characters (ESC and carriage return, as kubectl escapes them,
// printers.WriteEscaped). Everything graftctl prints can carry strings a
// tenant wrote (a shoot's region, annotations, Event messages, errors that
// quote them); written raw, an escape sequence in them would rewrite the
// operator's terminal. graftctl writes no control characters of its own, and
// JSON and YAML output escape them already.
func TerminalSafe(streams genericiooptions.IOStreams) genericiooptions.IOStreams {
	streams.Out = EscapingWriter(streams.Out)
	streams.ErrOut = EscapingWriter(streams.ErrOut)
	return streams
}

// EscapingWriter wraps w so that terminal control characters are escaped.
func EscapingWriter(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	if _, ok := w.(escaping); ok {
		return w
	}
	return escaping{w}
}

type escaping struct{ w io.Writer }

func (e escaping) Write(p []byte) (int, error) {
	if err := printers.WriteEscaped(e.w, string(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
