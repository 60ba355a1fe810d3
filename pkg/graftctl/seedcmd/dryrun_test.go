package seedcmd

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestDryRunFlag(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    DryRunStrategy
		wantErr string
	}{
		{nil, DryRunNone, ""},
		{[]string{"--dry-run"}, DryRunClient, ""},
		{[]string{"--dry-run=client"}, DryRunClient, ""},
		{[]string{"--dry-run=server"}, DryRunServer, ""},
		{[]string{"--dry-run=none"}, DryRunNone, ""},
		{[]string{"--dry-run=all"}, DryRunNone, `invalid dry-run value (all). Must be "none", "server", or "client"`},
	} {
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		AddDryRunFlag(cmd)
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		got, err := DryRunFromCommand(cmd)
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
	if s := DryRunServer.PatchOptions("m"); len(s.DryRun) != 1 || s.DryRun[0] != "All" || s.FieldManager != "m" {
		t.Errorf("server patch options %+v", s)
	}
	if s := DryRunNone.PatchOptions("m"); len(s.DryRun) != 0 {
		t.Errorf("none patch options %+v", s)
	}
}
