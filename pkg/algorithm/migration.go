package algorithm

import (
	"fmt"
	"strings"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// FilterMigration rejects, for a bound shoot on Gardener's API, the seeds
// Gardener would refuse to move its control plane to (CheckMigration).
const FilterMigration Filter = "Migration"

// Gardener moves a bound shoot's control plane (a change of spec.seedName
// through shoots/binding) only where its ShootValidator admission accepts the
// move. With Inputs.Migration set, a decision for a bound shoot rejects the
// seeds it would refuse, so that the destination chosen is one Gardener
// accepts (docs/daemons.md, "Gardener's migration rules").

// MigrationRefusalReason is why Gardener refuses a control-plane migration.
type MigrationRefusalReason int

const (
	// SourceWithoutBackup: the seed the shoot leaves has no spec.backup.
	SourceWithoutBackup MigrationRefusalReason = iota + 1
	// DestinationWithoutBackup: the seed the shoot would go to has no spec.backup.
	DestinationWithoutBackup
	// InternalDomainDiffers: the seeds' spec.dns.internal.domain differ.
	InternalDomainDiffers
	// DefaultDomainMissing: the shoot's domain lies under a default domain
	// of the seed it leaves that the destination does not offer.
	DefaultDomainMissing
	// OtherRefusal: the API server refused for another reason; Message says it.
	OtherRefusal
)

// MigrationRefusal is Gardener refusing to move a shoot's control plane from
// one seed to another, predicted by CheckMigration or read from the API
// server's answer.
type MigrationRefusal struct {
	Reason   MigrationRefusalReason
	From, To string
	// FromDomain and ToDomain are the seeds' internal domains
	// (InternalDomainDiffers).
	FromDomain, ToDomain string
	// DefaultDomain is the default domain the destination lacks
	// (DefaultDomainMissing).
	DefaultDomain string
	// Message is the API server's own words (OtherRefusal).
	Message string
}

// String says what Gardener refuses, why, and what an operator can do.
func (r MigrationRefusal) String() string {
	// The destination is the algorithm's choice: cordoning it is how an
	// operator makes the algorithm choose another seed.
	orElsewhere := fmt.Sprintf("or cordon seed %s so that another seed is chosen", r.To)
	switch r.Reason {
	case SourceWithoutBackup:
		return fmt.Sprintf("seed %s has no spec.backup: Gardener migrates a control plane only between seeds that both have backup; configure backup on seed %s, its shoots cannot leave it before", r.From, r.From)
	case DestinationWithoutBackup:
		return fmt.Sprintf("destination seed %s has no spec.backup: Gardener migrates a control plane only between seeds that both have backup; configure backup on seed %s, %s", r.To, r.To, orElsewhere)
	case InternalDomainDiffers:
		return fmt.Sprintf("seeds %s and %s have different internal DNS domains (%s and %s): Gardener migrates a control plane only between seeds with the same spec.dns.internal.domain; give seed %s the internal domain of seed %s, %s",
			r.From, r.To, domainOrNone(r.FromDomain), domainOrNone(r.ToDomain), r.To, r.From, orElsewhere)
	case DefaultDomainMissing:
		return fmt.Sprintf("the shoot's domain lies under %q, a default domain of seed %s that seed %s does not offer: Gardener keeps a shoot's default domain when it migrates; add %q to spec.dns.defaults of seed %s, %s",
			r.DefaultDomain, r.From, r.To, r.DefaultDomain, r.To, orElsewhere)
	default:
		return fmt.Sprintf("Gardener refused the migration to seed %s: %s", r.To, r.Message)
	}
}

func domainOrNone(d string) string {
	if d == "" {
		return "none"
	}
	return fmt.Sprintf("%q", d)
}

// CheckMigration applies Gardener's migration rules, in the order its
// admission checks them, to the shoot's control plane moving from one seed to
// another, and returns the refusal, or nil when Gardener admits the move.
func CheckMigration(shoot *v1alpha1.Shoot, from, to *v1alpha1.Seed) *MigrationRefusal {
	r := &MigrationRefusal{From: from.Name, To: to.Name}
	fromDomain, toDomain := internalDomain(from), internalDomain(to)
	switch {
	case from.Spec.Backup == nil:
		r.Reason = SourceWithoutBackup
	case to.Spec.Backup == nil:
		r.Reason = DestinationWithoutBackup
	case fromDomain != toDomain:
		r.Reason, r.FromDomain, r.ToDomain = InternalDomainDiffers, fromDomain, toDomain
	default:
		domain, _ := shootDomain(shoot)
		used := usedDefaultDomain(domain, from)
		if used == "" || offersDefaultDomain(to, used) {
			return nil
		}
		r.Reason, r.DefaultDomain = DefaultDomainMissing, used
	}
	return r
}

func internalDomain(seed *v1alpha1.Seed) string {
	if seed.Spec.DNS.Internal == nil {
		return ""
	}
	return seed.Spec.DNS.Internal.Domain
}

// usedDefaultDomain is the first default domain of seed that domain lies
// under, as Gardener matches it (a suffix after a dot), or "".
func usedDefaultDomain(domain string, seed *v1alpha1.Seed) string {
	if domain == "" {
		return ""
	}
	for _, d := range seed.Spec.DNS.Defaults {
		if strings.HasSuffix(domain, "."+d.Domain) {
			return d.Domain
		}
	}
	return ""
}

func offersDefaultDomain(seed *v1alpha1.Seed, domain string) bool {
	for _, d := range seed.Spec.DNS.Defaults {
		if d.Domain == domain {
			return true
		}
	}
	return false
}

// migratesFrom is the seed a bound shoot's control plane would leave when
// Inputs.Migration applies, or nil: the shoot is not bound, the rule is off,
// or the snapshot does not hold the seed (whose rules cannot be checked).
func (r *run) migratesFrom() *v1alpha1.Seed {
	if !r.in.Migration || r.shoot.Spec.SeedName == nil || *r.shoot.Spec.SeedName == "" {
		return nil
	}
	seed, _ := r.snap.Seed(*r.shoot.Spec.SeedName)
	return seed
}

// migrationPlugin rejects, for a bound shoot on Gardener's API, the seeds
// Gardener's admission would not migrate its control plane to.
var migrationPlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterMigration,
		short:  "migration refused by Gardener",
		message: func(r *run, v *verdict) string {
			if refusal := CheckMigration(r.shoot, r.source, v.info.seed); refusal != nil {
				return refusal.String()
			}
			return "Gardener would refuse the migration"
		},
	}},
	check: func(r *run, v *verdict) Filter {
		if CheckMigration(r.shoot, r.source, v.info.seed) != nil {
			return FilterMigration
		}
		return ""
	},
	off: func(r *run) bool { return r.source == nil },
	headline: func(r *run, n int) string {
		return fmt.Sprintf("none of the %d seeds is one Gardener would move the control plane to from seed %q", n, r.source.Name)
	},
}
