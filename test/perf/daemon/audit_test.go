package daemon

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAuditWritesCountsOneUsersWritesFromAnOffset(t *testing.T) {
	const user = "system:serviceaccount:graft-system:graft-capacity-annotator"
	before := `{"verb":"patch","user":{"username":"` + user + `"},"objectRef":{"resource":"seeds","subresource":"status"},"responseStatus":{"code":200}}` + "\n"
	after := `{"verb":"patch","user":{"username":"` + user + `"},"objectRef":{"resource":"seeds","subresource":"status"},"responseStatus":{"code":200}}
{"verb":"update","user":{"username":"` + user + `"},"objectRef":{"resource":"seeds","subresource":"status"},"responseStatus":{"code":409}}
{"verb":"create","user":{"username":"` + user + `"},"objectRef":{"resource":"events"},"responseStatus":{"code":201}}
{"verb":"create","user":{"username":"graft-admin"},"objectRef":{"resource":"shoots"},"responseStatus":{"code":201}}
{"verb":"patch","user":{"username":"` + user + `"},"objectRef":{"resource":"seeds"`
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(before+after), 0o644); err != nil {
		t.Fatal(err)
	}
	ok, refused, end, err := AuditWrites(path, int64(len(before)), user)
	if err != nil {
		t.Fatal(err)
	}
	if ok["patch seeds/status"] != 1 || ok["create events"] != 1 || len(ok) != 2 {
		t.Errorf("accepted = %v, want one status patch and one Event", ok)
	}
	if refused["update seeds/status"] != 1 || len(refused) != 1 {
		t.Errorf("refused = %v, want the conflicting update", refused)
	}
	// The last line is still being written: it is left for the next read.
	if want := int64(len(before+after) - len(`{"verb":"patch","user":{"username":"`+user+`"},"objectRef":{"resource":"seeds"`)); end != want {
		t.Errorf("end = %d, want %d", end, want)
	}
}

func TestReadMemoryReadsThisProcess(t *testing.T) {
	rss, hwm, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || hwm < rss {
		t.Errorf("VmRSS %d KiB, VmHWM %d KiB: want 0 < RSS <= HWM", rss, hwm)
	}
}
