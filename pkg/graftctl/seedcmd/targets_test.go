package seedcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/graft-dev/client-go/clientset/versioned/fake"

	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

func TestCompleteSeedNames(t *testing.T) {
	f := &factory.Static{Graft: fake.NewSimpleClientset(coretest.MakeSeed("aws-eu1").Obj(), coretest.MakeSeed("aws-eu2").Obj(), coretest.MakeSeed("gcp-us1").Obj())}
	root := &cobra.Command{Use: "graftctl"}
	child := &cobra.Command{Use: "cordon", ValidArgsFunction: CompleteSeedNames(f), Run: func(*cobra.Command, []string) {}}
	root.AddCommand(child)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{cobra.ShellCompRequestCmd, "cordon", "aws-eu1", "aws"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || lines[0] != "aws-eu2" || lines[1] != ":4" {
		t.Errorf("completion output %q, want aws-eu2 and the no-file directive", out.String())
	}
}

func TestSelectionValidate(t *testing.T) {
	for _, tc := range []struct {
		s    Selection
		want string
	}{
		{Selection{Names: []string{"a"}}, ""},
		{Selection{Selector: "env=x"}, ""},
		{Selection{All: true}, ""},
		{Selection{}, "at least one seed name must be specified since neither --all nor --selector is set"},
		{Selection{All: true, Selector: "a=b"}, "setting 'all' parameter with a non empty selector is prohibited"},
		{Selection{Names: []string{"a"}, All: true}, "seed names cannot be combined with --selector or --all"},
		{Selection{Selector: "a=(b"}, `invalid selector "a=(b": `},
	} {
		err := tc.s.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%+v: error %v, want %q", tc.s, err, tc.want)
		}
	}
}
