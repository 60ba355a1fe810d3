package seedcmd

import (
	"context"
	"fmt"
	"sort"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

// Selection is how a command was told which seeds to act on.
type Selection struct {
	Names    []string
	Selector string
	All      bool
}

// AddSelectorFlag registers -l/--selector.
func (s *Selection) AddSelectorFlag(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&s.Selector, "selector", "l", s.Selector,
		"Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2). Matching objects must satisfy all of the specified label constraints.")
}

// AddAllFlag registers --all.
func (s *Selection) AddAllFlag(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&s.All, "all", s.All, "Select all seeds in the cluster")
}

// Validate checks that exactly one way of naming seeds was used.
func (s *Selection) Validate() error {
	if s.All && s.Selector != "" {
		return fmt.Errorf("setting 'all' parameter with a non empty selector is prohibited")
	}
	if (s.All || s.Selector != "") && len(s.Names) > 0 {
		return fmt.Errorf("seed names cannot be combined with --selector or --all")
	}
	if !s.All && s.Selector == "" && len(s.Names) == 0 {
		return fmt.Errorf("at least one seed name must be specified since neither --all nor --selector is set")
	}
	if s.Selector != "" {
		if _, err := labels.Parse(s.Selector); err != nil {
			return fmt.Errorf("invalid selector %q: %w", s.Selector, err)
		}
	}
	return nil
}

// Resolve returns the names of the selected seeds. Named seeds are returned as
// given, so that a missing one fails with the API server's NotFound when the
// command reads it; a selector that matches nothing returns no names.
func (s *Selection) Resolve(ctx context.Context, client garden.Client) ([]string, error) {
	if !s.All && s.Selector == "" {
		return s.Names, nil
	}
	seeds, err := client.ListSeeds(ctx, metav1.ListOptions{LabelSelector: s.Selector})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(seeds))
	for _, seed := range seeds {
		names = append(names, seed.Name)
	}
	sort.Strings(names)
	return names, nil
}

// CompleteSeedNames is a cobra ValidArgsFunction that offers the names of the
// seeds in the cluster, leaving out those already on the command line.
func CompleteSeedNames(f factory.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		client, err := f.Garden()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		seeds, err := client.ListSeeds(cmd.Context(), metav1.ListOptions{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		used := map[string]bool{}
		for _, a := range args {
			used[a] = true
		}
		var names []string
		for _, seed := range seeds {
			if !used[seed.Name] && len(seed.Name) >= len(toComplete) && seed.Name[:len(toComplete)] == toComplete {
				names = append(names, seed.Name)
			}
		}
		sort.Strings(names)
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}
