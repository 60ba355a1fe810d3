package algorithm

import (
	"strings"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// An evicted shoot keeps the networks it runs with: status.networking
// counts besides the spec's networks and the seed's defaults, as in Gardener.
func TestNetworksFromStatus(t *testing.T) {
	a := coretest.MakeSeed("a").Networks("", "10.96.0.0/11,fd00:10::/48", "10.64.0.0/13,fd00:64::/108").Obj()
	b := coretest.MakeSeed("b").Obj()
	evicted := func(pods, services []string) *v1alpha1.Shoot {
		return coretest.MakeShoot("garden-dev", "s").Networks("10.180.0.0/16", "", "").
			Annotation(v1alpha1.AnnotationDescheduledFrom, "old").StatusNetworks(nil, pods, services).Obj()
	}
	for _, tc := range []scheduleCase{
		{
			name:        "IPv6 networks from status count for an IPv4 shoot",
			seeds:       seeds(a, b),
			shoot:       evicted([]string{"100.96.0.0/11", "fd00:10::/56"}, nil),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterNetworks},
		},
		{
			name:    "the message names the network from status",
			seeds:   seeds(a),
			shoot:   evicted([]string{"fd00:10::/56"}, []string{"100.64.0.0/13"}),
			wantErr: []string{"a => invalid networks: [shoot pod network fd00:10::/56 (status.networking) intersects with seed pod network fd00:10::/48]"},
		},
		{
			name:    "status networks in a reserved range",
			seeds:   seeds(b),
			shoot:   evicted([]string{"244.0.0.0/11"}, nil),
			wantErr: []string{"shoot pod network 244.0.0.0/11 (status.networking) intersects with reserved shoot pod network mapping range 244.0.0.0/8"},
		},
		{
			name:        "the seed's default still applies when status reports the network",
			seeds:       seeds(coretest.MakeSeed("a").ShootDefaults("", "243.0.0.0/16").Obj(), b),
			shoot:       evicted(nil, []string{"100.64.0.0/13"}),
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
	shoot := coretest.MakeShoot("garden-dev", "s").Networks("fd00:99::/64", "fd00:10::/56", "fd00:99:1::/108", v1alpha1.IPFamilyIPv6).
		StatusNetworks([]string{"fd00:99::/64"}, []string{"fd00:10::/56"}, []string{"fd00:99:1::/108"}).Obj()
	seed := coretest.MakeSeed("a").Networks("", "10.96.0.0/11,fd00:10::/48", "10.64.0.0/13").Obj()
	_, err := Schedule(shoot, snapshotOf(seeds(seed)), Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()})
	if err == nil {
		t.Fatal("scheduled although the pod network overlaps")
	}
	if n := strings.Count(err.Error(), "pod network fd00:10::/56"); n != 1 {
		t.Errorf("the pod network is reported %d times, want once: %v", n, err)
	}
}

// The descheduler asks the same question for a shoot still on its seed.
func TestFitsElsewhereUsesStatusNetworks(t *testing.T) {
	shoot := coretest.MakeShoot("garden-dev", "s").Seed("c").StatusSeed("c").Networks("10.180.0.0/16", "", "").StatusNetworks(nil, []string{"fd00:10::/56"}, nil).Obj()
	snap := snapshotOf(seeds(coretest.MakeSeed("a").Networks("", "10.96.0.0/11,fd00:10::/48", "10.64.0.0/13").Obj(), coretest.MakeSeed("c").Obj()), shoot)
	if got, err := FitsElsewhere(shoot, snap, Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}, "c"); err == nil {
		t.Errorf("FitsElsewhere = %q; want no fit, the shoot's pods overlap seed a's", got)
	}
}
