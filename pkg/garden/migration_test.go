package garden

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/coretest"
)

var shootsResource = schema.GroupResource{Group: "core.gardener.cloud", Resource: "shoots"}

// gardenerRefusal is an error as gardener-apiserver's ShootValidator answers
// a refused binding (admission.NewForbidden).
func gardenerRefusal(msg string) error {
	return apierrors.NewForbidden(shootsResource, "prod-1", errors.New(msg))
}

// seedOf is a Gardener Seed with the migration facts given, as graft reads it.
func seedOf(t *testing.T, name string, backup bool, internal string, defaults ...string) *corev1alpha1.Seed {
	t.Helper()
	dns := map[string]any{}
	if internal != "" {
		dns["internal"] = map[string]any{"type": "aws-route53", "domain": internal}
	}
	var ds []any
	for _, d := range defaults {
		ds = append(ds, map[string]any{"type": "aws-route53", "domain": d})
	}
	if len(ds) > 0 {
		dns["defaults"] = ds
	}
	spec := map[string]any{"dns": dns}
	if backup {
		spec["backup"] = map[string]any{"provider": "aws", "credentialsRef": map[string]any{"apiVersion": "v1", "kind": "Secret", "name": "b", "namespace": "garden"}}
	}
	data, err := json.Marshal(map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", "metadata": map[string]any{"name": name}, "spec": spec})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := FromGardener(gardenerObject(t, string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*corev1alpha1.Seed)
}

type facts struct {
	name     string
	backup   bool
	internal string
	defaults []string
}

func backed(name, internal string, defaults ...string) facts {
	return facts{name: name, backup: true, internal: internal, defaults: defaults}
}

// TestMigrationRefusals: each of Gardener's rules, predicted by the algorithm
// from the seeds as graft reads them from Gardener's API and read back from
// the API server's answer, gives the same refusal and the same words, which
// name the seed to fix and what to do.
func TestMigrationRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		domain   string
		from, to facts
		// server is what gardener-apiserver v1.150.0 answers, empty when it
		// accepts the binding.
		server string
		want   *algorithm.MigrationRefusal
		says   []string
	}{
		"accepted": {
			from: backed("a", "internal.example"), to: backed("b", "internal.example"),
		},
		"accepted with the default domain on both seeds": {
			domain: "prod.shoots.example",
			from:   backed("a", "internal.example", "shoots.example"), to: backed("b", "internal.example", "other.example", "shoots.example"),
		},
		"accepted with a domain of the shoot's own": {
			domain: "prod.team.example",
			from:   backed("a", "internal.example", "shoots.example"), to: backed("b", "internal.example"),
		},
		"source without backup": {
			from: facts{name: "a", internal: "internal.example"}, to: backed("b", "internal.example"),
			server: `cannot change seed name because backup is not configured for old seed "a"`,
			want:   &algorithm.MigrationRefusal{Reason: algorithm.SourceWithoutBackup, From: "a", To: "b"},
			says:   []string{"seed a has no spec.backup", "configure backup on seed a"},
		},
		"source checked before destination": {
			from: facts{name: "a"}, to: facts{name: "b"},
			server: `cannot change seed name because backup is not configured for old seed "a"`,
			want:   &algorithm.MigrationRefusal{Reason: algorithm.SourceWithoutBackup, From: "a", To: "b"},
		},
		"destination without backup": {
			from: backed("a", "internal.example"), to: facts{name: "b", internal: "internal.example"},
			server: `cannot change seed name because backup is not configured for seed "b"`,
			want:   &algorithm.MigrationRefusal{Reason: algorithm.DestinationWithoutBackup, From: "a", To: "b"},
			says:   []string{"destination seed b has no spec.backup", "only between seeds that both have backup", "configure backup on seed b, or cordon seed b so that another seed is chosen"},
		},
		"different internal domains": {
			from: backed("a", "internal.one.example"), to: backed("b", "internal.two.example"),
			server: `cannot change seed name because internal domain would change from "internal.one.example" to "internal.two.example"`,
			want:   &algorithm.MigrationRefusal{Reason: algorithm.InternalDomainDiffers, From: "a", To: "b", FromDomain: "internal.one.example", ToDomain: "internal.two.example"},
			says:   []string{`("internal.one.example" and "internal.two.example")`, "same spec.dns.internal.domain", "give seed b the internal domain of seed a, or cordon seed b"},
		},
		"internal domain on one seed only": {
			from: backed("a", "internal.example"), to: backed("b", ""),
			server: `cannot change seed name because internal domain would change from "internal.example" to ""`,
			want:   &algorithm.MigrationRefusal{Reason: algorithm.InternalDomainDiffers, From: "a", To: "b", FromDomain: "internal.example"},
			says:   []string{`("internal.example" and none)`},
		},
		"default domain missing on the destination": {
			domain: "prod.shoots.example",
			from:   backed("a", "internal.example", "shoots.example"), to: backed("b", "internal.example", "other.example"),
			server: `cannot reschedule shoot "prod-1" to seed "b" because the shoot uses the default domain "shoots.example" which is not supported by the new seed (supported domains: [other.example])`,
			want:   &algorithm.MigrationRefusal{Reason: algorithm.DefaultDomainMissing, From: "a", To: "b", DefaultDomain: "shoots.example"},
			says:   []string{`add "shoots.example" to spec.dns.defaults of seed b`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			shoot := coretest.MakeShoot("garden-prod", "prod-1").Seed(tc.from.name).Obj()
			if tc.domain != "" {
				shoot.Spec.DNS = &corev1alpha1.DNS{Domain: &tc.domain}
			}
			from := seedOf(t, tc.from.name, tc.from.backup, tc.from.internal, tc.from.defaults...)
			to := seedOf(t, tc.to.name, tc.to.backup, tc.to.internal, tc.to.defaults...)
			predicted := algorithm.CheckMigration(shoot, from, to)
			if !reflect.DeepEqual(predicted, tc.want) {
				t.Errorf("CheckMigration = %+v, want %+v", predicted, tc.want)
			}
			if tc.server == "" {
				return
			}
			answered := RefusalOf(gardenerRefusal(tc.server), tc.from.name, tc.to.name)
			if !reflect.DeepEqual(answered, tc.want) {
				t.Errorf("RefusalOf(%q) = %+v, want %+v", tc.server, answered, tc.want)
			}
			if predicted != nil && answered != nil && predicted.String() != answered.String() {
				t.Errorf("predicted and answered refusals are worded differently:\n%s\n%s", predicted, answered)
			}
			for _, s := range tc.says {
				if !strings.Contains(tc.want.String(), s) {
					t.Errorf("refusal %q does not say %q", tc.want, s)
				}
			}
		})
	}
}

func TestRefusalOfOtherAnswers(t *testing.T) {
	if r := RefusalOf(nil, "a", "b"); r != nil {
		t.Errorf("RefusalOf(nil) = %+v", r)
	}
	conflict := apierrors.NewConflict(shootsResource, "prod-1", fmt.Errorf("the object has been modified"))
	if r := RefusalOf(conflict, "a", "b"); r != nil {
		t.Errorf("a conflict was taken for a refusal: %+v", r)
	}
	if r := RefusalOf(errors.New("connection refused"), "a", "b"); r != nil {
		t.Errorf("a lost connection was taken for a refusal: %+v", r)
	}
	other := gardenerRefusal("forbidden to use a seed whose taints are not tolerated by the shoot")
	r := RefusalOf(other, "a", "b")
	if r == nil || r.Reason != algorithm.OtherRefusal {
		t.Fatalf("RefusalOf(%v) = %+v, want OtherRefusal", other, r)
	}
	if got := r.String(); !strings.HasPrefix(got, "Gardener refused the migration to seed b: ") || !strings.Contains(got, "taints are not tolerated") {
		t.Errorf("other refusal worded %q", got)
	}
}
