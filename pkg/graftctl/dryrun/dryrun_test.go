package dryrun

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestFlag(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    Strategy
		wantErr string
	}{
		{nil, None, ""},
		{[]string{"--dry-run"}, Client, ""},
		{[]string{"--dry-run=client"}, Client, ""},
		{[]string{"--dry-run=server"}, Server, ""},
		{[]string{"--dry-run=none"}, None, ""},
		{[]string{"--dry-run=all"}, None, `invalid dry-run value (all). Must be "none", "server", or "client"`},
	} {
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		AddFlag(cmd)
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		got, err := FromCommand(cmd)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
	if s := Server.PatchOptions("m"); len(s.DryRun) != 1 || s.DryRun[0] != "All" || s.FieldManager != "m" {
		t.Errorf("server patch options %+v", s)
	}
	if s := None.PatchOptions("m"); len(s.DryRun) != 0 {
		t.Errorf("none patch options %+v", s)
	}
}
