package daemon

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// auditEntry is what this benchmark reads of a kube-apiserver audit event
// (audit.k8s.io/v1, one JSON object per line).
type auditEntry struct {
	Verb string `json:"verb"`
	User struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// AuditWrites counts the writes the API server completed for user, as its
// audit log recorded them from byte offset on (the control plane's policy
// records every write but a Lease's), by "verb resource[/subresource]";
// refused counts those it answered with an error.
func AuditWrites(path string, offset int64, user string) (accepted, refused map[string]int, end int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, nil, 0, err
	}
	accepted, refused = map[string]int{}, map[string]int{}
	r := bufio.NewReaderSize(f, 1<<20)
	end = offset
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			// A line still being written is left for the next read.
			return accepted, refused, end, nil
		}
		if err != nil {
			return nil, nil, 0, err
		}
		end += int64(len(line))
		var e auditEntry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, nil, 0, fmt.Errorf("%s: %w", path, err)
		}
		if e.User.Username != user || e.ObjectRef == nil {
			continue
		}
		kind := e.Verb + " " + e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			kind += "/" + e.ObjectRef.Subresource
		}
		if e.ResponseStatus != nil && e.ResponseStatus.Code >= 300 {
			refused[kind]++
		} else {
			accepted[kind]++
		}
	}
}

// AuditSize is the audit log's current size, the offset to count from.
func AuditSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
