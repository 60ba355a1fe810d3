package seedcmd

import "testing"

func TestResourceOf(t *testing.T) {
	for arg, want := range map[string]Resource{
		"seed": Seeds, "Seeds": Seeds, "seed.core.graft.dev": Seeds, "SEEDS.core.graft.dev": Seeds,
		"shoot": Shoots, "shoots": Shoots, "shoot.core.graft.dev": Shoots, "shoots.core.graft.dev": Shoots,
		"seeds.core.gardener.cloud": UnknownResource, "seeds.": UnknownResource, "seedz": UnknownResource,
		"nodes": UnknownResource, "": UnknownResource, "shoot.core.graft.dev.": UnknownResource,
	} {
		if got := ResourceOf(arg); got != want {
			t.Errorf("ResourceOf(%q) = %v, want %v", arg, got, want)
		}
	}
}
