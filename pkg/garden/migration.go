package garden

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Gardener's rules for a control-plane migration through shoots/binding, the
// facts graftctl reads to predict them, and the words of a refusal
// (docs/daemons.md, "Gardener's migration rules").

// MigrationSeed is what Gardener looks at on either seed of a control-plane
// migration.
type MigrationSeed struct {
	Name string
	// Backup is whether the seed has spec.backup.
	Backup bool
	// InternalDomain is spec.dns.internal.domain, empty when unset.
	InternalDomain string
	// DefaultDomains are the domains of spec.dns.defaults.
	DefaultDomains []string
}

// MigrationFacts are the fields of Gardener's objects graft's types do not
// hold and a migration depends on.
type MigrationFacts struct {
	// Seeds by name.
	Seeds map[string]MigrationSeed
	// ShootDomains are the shoots' spec.dns.domain by namespace/name, for
	// the shoots that have one.
	ShootDomains map[string]string
}

// Migrator moves a bound shoot's control plane to another seed; only a
// Gardener garden has one (see AsMigrator).
type Migrator interface {
	// MigrationFacts reads every seed's backup and DNS settings and every
	// shoot's domain.
	MigrationFacts(ctx context.Context) (*MigrationFacts, error)
	// Migrate changes the shoot's spec.seedName to seed through
	// shoots/binding, preconditioned on the shoot's resourceVersion, under
	// fieldManager; with dryRun the API server admits the change without
	// storing it.
	Migrate(ctx context.Context, shoot *corev1alpha1.Shoot, seed, fieldManager string, dryRun bool) (*corev1alpha1.Shoot, error)
}

// AsMigrator returns the client's Migrator, if its API has one.
func AsMigrator(c Client) (Migrator, bool) {
	m, ok := c.(Migrator)
	return m, ok
}

func (g gardenerClient) MigrationFacts(ctx context.Context) (*MigrationFacts, error) {
	facts := &MigrationFacts{Seeds: map[string]MigrationSeed{}, ShootDomains: map[string]string{}}
	seeds, err := g.resource("seeds").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, s := range seeds.Items {
		facts.Seeds[s.GetName()] = migrationSeedOf(&s)
	}
	shoots, err := g.resource("shoots").Namespace(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, s := range shoots.Items {
		if domain, _, _ := unstructured.NestedString(s.Object, "spec", "dns", "domain"); domain != "" {
			facts.ShootDomains[s.GetNamespace()+"/"+s.GetName()] = domain
		}
	}
	return facts, nil
}

// migrationSeedOf reads a Gardener Seed's migration facts.
func migrationSeedOf(seed *unstructured.Unstructured) MigrationSeed {
	m := MigrationSeed{Name: seed.GetName()}
	backup, found, _ := unstructured.NestedFieldNoCopy(seed.Object, "spec", "backup")
	m.Backup = found && backup != nil
	m.InternalDomain, _, _ = unstructured.NestedString(seed.Object, "spec", "dns", "internal", "domain")
	defaults, _, _ := unstructured.NestedSlice(seed.Object, "spec", "dns", "defaults")
	for _, d := range defaults {
		if entry, ok := d.(map[string]any); ok {
			if domain, ok := entry["domain"].(string); ok {
				m.DefaultDomains = append(m.DefaultDomains, domain)
			}
		}
	}
	return m
}

func (g gardenerClient) Migrate(ctx context.Context, shoot *corev1alpha1.Shoot, seed, fieldManager string, dryRun bool) (*corev1alpha1.Shoot, error) {
	opts := metav1.UpdateOptions{FieldManager: fieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return convert[corev1alpha1.Shoot](bindGardener(ctx, g.resource("shoots").Namespace(shoot.Namespace), shoot.Name, shoot.ResourceVersion, seed, opts))
}

// RefusalReason is why Gardener refuses a control-plane migration.
type RefusalReason int

const (
	// SourceWithoutBackup: the seed the shoot leaves has no spec.backup.
	SourceWithoutBackup RefusalReason = iota + 1
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

// Refusal is Gardener refusing to move a shoot's control plane from one seed
// to another.
type Refusal struct {
	Reason   RefusalReason
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
func (r Refusal) String() string {
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

// PredictRefusal applies Gardener's migration rules, in the order its
// admission checks them, to a shoot with domain shootDomain (empty when it
// has none) leaving from for to, and returns the refusal or nil.
func PredictRefusal(shootDomain string, from, to MigrationSeed) *Refusal {
	r := &Refusal{From: from.Name, To: to.Name}
	switch {
	case !from.Backup:
		r.Reason = SourceWithoutBackup
	case !to.Backup:
		r.Reason = DestinationWithoutBackup
	case from.InternalDomain != to.InternalDomain:
		r.Reason, r.FromDomain, r.ToDomain = InternalDomainDiffers, from.InternalDomain, to.InternalDomain
	default:
		used := usedDefaultDomain(shootDomain, from.DefaultDomains)
		if used == "" || contains(to.DefaultDomains, used) {
			return nil
		}
		r.Reason, r.DefaultDomain = DefaultDomainMissing, used
	}
	return r
}

// usedDefaultDomain is the first of defaults that domain lies under, as
// Gardener matches it (a suffix after a dot), or "".
func usedDefaultDomain(domain string, defaults []string) string {
	if domain == "" {
		return ""
	}
	for _, d := range defaults {
		if strings.HasSuffix(domain, "."+d) {
			return d
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Gardener's refusals of a seed change, as its ShootValidator words them.
var (
	sourceBackupRefusal = regexp.MustCompile(`cannot change seed name because backup is not configured for old seed "([^"]*)"`)
	destBackupRefusal   = regexp.MustCompile(`cannot change seed name because backup is not configured for seed "([^"]*)"`)
	domainRefusal       = regexp.MustCompile(`cannot change seed name because internal domain would change from "([^"]*)" to "([^"]*)"`)
	defaultRefusal      = regexp.MustCompile(`because the shoot uses the default domain "([^"]*)" which is not supported by the new seed`)
)

// RefusalOf reads the API server's answer to a migration of a shoot from one
// seed to another: a refusal by admission (Forbidden) or validation (Invalid)
// becomes a Refusal, worded as PredictRefusal's; any other error (a conflict,
// a lost connection) is no refusal and gives nil.
func RefusalOf(err error, from, to string) *Refusal {
	if err == nil || !(apierrors.IsForbidden(err) || apierrors.IsInvalid(err)) {
		return nil
	}
	msg := err.Error()
	r := &Refusal{From: from, To: to}
	switch {
	case sourceBackupRefusal.MatchString(msg):
		r.Reason = SourceWithoutBackup
	case destBackupRefusal.MatchString(msg):
		r.Reason = DestinationWithoutBackup
	case domainRefusal.MatchString(msg):
		m := domainRefusal.FindStringSubmatch(msg)
		r.Reason, r.FromDomain, r.ToDomain = InternalDomainDiffers, m[1], m[2]
	case defaultRefusal.MatchString(msg):
		r.Reason, r.DefaultDomain = DefaultDomainMissing, defaultRefusal.FindStringSubmatch(msg)[1]
	default:
		r.Reason, r.Message = OtherRefusal, msg
	}
	return r
}
