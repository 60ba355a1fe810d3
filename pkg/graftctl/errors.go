package graftctl

import (
	"errors"
	"fmt"
	"io"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// PrintError writes err the way kubectl's users expect: one "error: " line per
// failure, the API server's own message for API errors (Forbidden, NotFound,
// Conflict), and never a stack trace.
func PrintError(w io.Writer, err error) {
	for _, line := range ErrorLines(err) {
		fmt.Fprintf(w, "error: %s\n", line)
	}
}

// ErrorLines flattens err into the messages PrintError prints.
func ErrorLines(err error) []string {
	if err == nil {
		return nil
	}
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		var lines []string
		for _, e := range utilerrors.Flatten(agg).Errors() {
			lines = append(lines, ErrorLines(e)...)
		}
		return lines
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) && err.Error() == status.Status().Message {
		return []string{strings.TrimSpace(status.Status().Message)}
	}
	return []string{strings.TrimSpace(err.Error())}
}
