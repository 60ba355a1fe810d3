package garden

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var shootsResource = schema.GroupResource{Group: "core.gardener.cloud", Resource: "shoots"}

// gardenerRefusal is an error as gardener-apiserver's ShootValidator answers
// a refused binding (admission.NewForbidden).
func gardenerRefusal(msg string) error {
	return apierrors.NewForbidden(shootsResource, "prod-1", errors.New(msg))
}

func backed(name, internal string, defaults ...string) MigrationSeed {
	return MigrationSeed{Name: name, Backup: true, InternalDomain: internal, DefaultDomains: defaults}
}

// TestMigrationRefusals: each of Gardener's rules, predicted from the seeds
// and read back from the API server's answer, gives the same refusal and the
// same words, which name the seed to fix and what to do.
func TestMigrationRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		domain   string
		from, to MigrationSeed
		// server is what gardener-apiserver v1.149.3 answers, empty when it
		// accepts the binding.
		server string
		want   *Refusal
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
			from: MigrationSeed{Name: "a", InternalDomain: "internal.example"}, to: backed("b", "internal.example"),
			server: `cannot change seed name because backup is not configured for old seed "a"`,
			want:   &Refusal{Reason: SourceWithoutBackup, From: "a", To: "b"},
			says:   []string{"seed a has no spec.backup", "configure backup on seed a"},
		},
		"source checked before destination": {
			from: MigrationSeed{Name: "a"}, to: MigrationSeed{Name: "b"},
			server: `cannot change seed name because backup is not configured for old seed "a"`,
			want:   &Refusal{Reason: SourceWithoutBackup, From: "a", To: "b"},
		},
		"destination without backup": {
			from: backed("a", "internal.example"), to: MigrationSeed{Name: "b", InternalDomain: "internal.example"},
			server: `cannot change seed name because backup is not configured for seed "b"`,
			want:   &Refusal{Reason: DestinationWithoutBackup, From: "a", To: "b"},
			says:   []string{"destination seed b has no spec.backup", "only between seeds that both have backup", "configure backup on seed b, or cordon seed b so that another seed is chosen"},
		},
		"different internal domains": {
			from: backed("a", "internal.one.example"), to: backed("b", "internal.two.example"),
			server: `cannot change seed name because internal domain would change from "internal.one.example" to "internal.two.example"`,
			want:   &Refusal{Reason: InternalDomainDiffers, From: "a", To: "b", FromDomain: "internal.one.example", ToDomain: "internal.two.example"},
			says:   []string{`("internal.one.example" and "internal.two.example")`, "same spec.dns.internal.domain", "give seed b the internal domain of seed a, or cordon seed b"},
		},
		"internal domain on one seed only": {
			from: backed("a", "internal.example"), to: backed("b", ""),
			server: `cannot change seed name because internal domain would change from "internal.example" to ""`,
			want:   &Refusal{Reason: InternalDomainDiffers, From: "a", To: "b", FromDomain: "internal.example"},
			says:   []string{`("internal.example" and none)`},
		},
		"default domain missing on the destination": {
			domain: "prod.shoots.example",
			from:   backed("a", "internal.example", "shoots.example"), to: backed("b", "internal.example", "other.example"),
			server: `cannot reschedule shoot "prod-1" to seed "b" because the shoot uses the default domain "shoots.example" which is not supported by the new seed (supported domains: [other.example])`,
			want:   &Refusal{Reason: DefaultDomainMissing, From: "a", To: "b", DefaultDomain: "shoots.example"},
			says:   []string{`add "shoots.example" to spec.dns.defaults of seed b`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			predicted := PredictRefusal(tc.domain, tc.from, tc.to)
			if !reflect.DeepEqual(predicted, tc.want) {
				t.Errorf("PredictRefusal = %+v, want %+v", predicted, tc.want)
			}
			if tc.server == "" {
				return
			}
			answered := RefusalOf(gardenerRefusal(tc.server), tc.from.Name, tc.to.Name)
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
	if r == nil || r.Reason != OtherRefusal {
		t.Fatalf("RefusalOf(%v) = %+v, want OtherRefusal", other, r)
	}
	if got := r.String(); !strings.HasPrefix(got, "Gardener refused the migration to seed b: ") || !strings.Contains(got, "taints are not tolerated") {
		t.Errorf("other refusal worded %q", got)
	}
}

func TestMigrationSeedOf(t *testing.T) {
	seed := gardenerObject(t, `{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Seed","metadata":{"name":"s1"},
	 "spec":{"backup":{"provider":"aws","credentialsRef":{"apiVersion":"v1","kind":"Secret","name":"b","namespace":"garden"}},
	  "dns":{"internal":{"type":"aws-route53","domain":"internal.example"},"defaults":[{"type":"aws-route53","domain":"shoots.example"},{"domain":"more.example"}]}}}`)
	want := MigrationSeed{Name: "s1", Backup: true, InternalDomain: "internal.example", DefaultDomains: []string{"shoots.example", "more.example"}}
	if got := migrationSeedOf(seed); !reflect.DeepEqual(got, want) {
		t.Errorf("migrationSeedOf = %+v, want %+v", got, want)
	}
	bare := gardenerObject(t, gardenerSeed)
	if got := migrationSeedOf(bare); !reflect.DeepEqual(got, MigrationSeed{Name: "s1"}) {
		t.Errorf("migrationSeedOf of a seed without backup and DNS = %+v", got)
	}
}
