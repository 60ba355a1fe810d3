package algorithm

import (
	"strings"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// An evicted shoot keeps the networks it runs with: status.networking counts,
// and the new seed's shootDefaults do not replace what it reports.
func TestNetworksFromStatus(t *testing.T) {
	// Seed a's defaults are disjoint from its own networks, so a shoot that
	// took them would fit; the shoot really runs with a pod network inside
	// a's.
	a := coretest.MakeSeed("a").ShootDefaults("100.96.0.0/11", "100.64.0.0/13").Obj()
	b := coretest.MakeSeed("b").Networks("10.250.0.0/16", "10.32.0.0/11", "10.64.0.0/13").Obj()
	evicted := func(pods, services []string) *v1alpha1.Shoot {
		return coretest.MakeShoot("garden-dev", "s").Networks("10.180.0.0/16", "", "").
			Annotation(v1alpha1.AnnotationDescheduledFrom, "old").StatusNetworks(nil, pods, services).Obj()
	}
	for _, tc := range []scheduleCase{
		{
			name:        "status pods are checked instead of the new seed's default",
			seeds:       seeds(a, b),
			shoot:       evicted([]string{"10.100.0.0/16"}, []string{"100.64.0.0/13"}),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterNetworks},
		},
		{
			name:    "the message names the network from status",
			seeds:   seeds(a),
			shoot:   evicted([]string{"10.100.0.0/16"}, []string{"100.64.0.0/13"}),
			wantErr: []string{"a => invalid networks: [shoot pod network 10.100.0.0/16 (status.networking) intersects with seed pod network 10.96.0.0/11]"},
		},
		{
			name: "a default that would overlap does not apply when status reports the network",
			seeds: seeds(coretest.MakeSeed("a").ShootDefaults("10.96.0.0/12", "10.64.0.0/14").Obj(),
				coretest.MakeSeed("b").Networks("10.250.0.0/16", "10.32.0.0/11", "10.64.0.0/13").Obj()),
			shoot: evicted([]string{"100.96.0.0/11"}, []string{"100.64.0.0/13"}),
			want:  "a",
		},
		{
			name:        "a kind status does not report still takes the seed's default",
			seeds:       seeds(coretest.MakeSeed("a").ShootDefaults("100.96.0.0/11", "10.64.0.0/14").Obj(), b),
			shoot:       evicted([]string{"100.96.0.0/11"}, nil),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterNetworks},
		},
		{
			name:        "status nodes are checked besides the spec's",
			seeds:       seeds(coretest.MakeSeed("a").Obj(), coretest.MakeSeed("b").Networks("10.251.0.0/16", "10.96.0.0/11", "10.64.0.0/13").Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").StatusNetworks([]string{"10.180.0.0/16", "10.250.8.0/24"}, nil, nil).Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterNetworks},
		},
		{
			name:        "IPv6 networks from status count for an IPv4 shoot",
			seeds:       seeds(coretest.MakeSeed("a").Networks("10.250.0.0/16", "10.96.0.0/11,fd00:10::/48", "10.64.0.0/13").Obj(), b),
			shoot:       coretest.MakeShoot("garden-dev", "s").StatusNetworks(nil, []string{"100.96.0.0/11", "fd00:10::/56"}, nil).Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterNetworks},
		},
		{
			name:      "a malformed status network is an input error",
			seeds:     seeds(a),
			shoot:     evicted([]string{"10.100.0.0/33"}, nil),
			wantErr:   []string{`shoot garden-dev/s: status.networking: pod network: "10.100.0.0/33" is not a CIDR`},
			wantOther: true,
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

// A network both the spec and status.networking name is checked once.
func TestNetworksFromStatusNotRepeated(t *testing.T) {
	shoot := coretest.MakeShoot("garden-dev", "s").Networks("10.180.0.0/16", "10.100.0.0/16", "100.64.0.0/13").StatusNetworks([]string{"10.180.0.0/16"}, []string{"10.100.0.0/16"}, []string{"100.64.0.0/13"}).Obj()
	_, err := Schedule(shoot, snapshotOf(seeds(coretest.MakeSeed("a").Obj())), Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()})
	if err == nil {
		t.Fatal("scheduled although the pod network overlaps")
	}
	if n := strings.Count(err.Error(), "pod network 10.100.0.0/16"); n != 1 {
		t.Errorf("the pod network is reported %d times, want once: %v", n, err)
	}
}

// The descheduler asks the same question for a shoot still on its seed.
func TestFitsElsewhereUsesStatusNetworks(t *testing.T) {
	shoot := coretest.MakeShoot("garden-dev", "s").Seed("c").StatusSeed("c").Networks("10.180.0.0/16", "", "").StatusNetworks(nil, []string{"10.100.0.0/16"}, []string{"100.64.0.0/13"}).Obj()
	snap := snapshotOf(seeds(coretest.MakeSeed("a").ShootDefaults("100.96.0.0/11", "100.64.0.0/13").Obj(), coretest.MakeSeed("c").Obj()), shoot)
	if got, err := FitsElsewhere(shoot, snap, Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}, "c"); err == nil {
		t.Errorf("FitsElsewhere = %q; want no fit, the shoot's pods overlap seed a's", got)
	}
}
