package algorithm

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// FilterDomain rejects, for a shoot whose domain lies under a seed's
// default domain, the seeds without the default domain that gives it.
const FilterDomain Filter = "Domain"

// The default domain rule, as Gardener's scheduler applies it: a shoot whose
// domain lies under a default domain of one of the seeds still in the
// running (spec.dns.defaults) uses that default domain, and it may only go
// to a seed whose default domain gives exactly <shoot>.<project>.<domain>. A
// domain under none of them is the shoot's own, and every seed may host it.

// ProjectOf is the Project a shoot's namespace belongs to when nothing says
// otherwise: Gardener names a project's namespace garden-<project>, and the
// namespace garden is project garden's.
func ProjectOf(namespace string) string {
	if p, ok := strings.CutPrefix(namespace, "garden-"); ok && p != "" {
		return p
	}
	return namespace
}

func shootDomain(shoot *v1alpha1.Shoot) (string, bool) {
	if shoot.Spec.DNS == nil || shoot.Spec.DNS.Domain == nil {
		return "", false
	}
	return *shoot.Spec.DNS.Domain, true
}

func (r *run) project() string {
	if r.in.Project != "" {
		return r.in.Project
	}
	return ProjectOf(r.shoot.Namespace)
}

// prepareDomain decides, over the seeds left, whether the shoot's domain
// is a default domain's.
func (r *run) prepareDomain() {
	domain, ok := shootDomain(r.shoot)
	if !ok {
		return
	}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter != "" {
			continue
		}
		for _, d := range v.info.seed.Spec.DNS.Defaults {
			if strings.HasSuffix(domain, "."+d.Domain) {
				r.defaultDomain = true
				return
			}
		}
	}
}

// givesDomain reports whether one of the seed's default domains gives the
// shoot's domain.
func (r *run) givesDomain(seed *v1alpha1.Seed) bool {
	domain, _ := shootDomain(r.shoot)
	for _, d := range seed.Spec.DNS.Defaults {
		if strings.HasSuffix(domain, "."+d.Domain) && domain == r.shoot.Name+"."+r.project()+"."+d.Domain {
			return true
		}
	}
	return false
}

// domainPlugin rejects, for a shoot whose domain lies under a seed's default
// domain, the seeds whose default domains do not give it.
var domainPlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterDomain,
		short:  "default domain",
		message: func(r *run, _ *verdict) string {
			domain, _ := shootDomain(r.shoot)
			return fmt.Sprintf("shoot domain %q lies under a seed's default domain, and no default domain of this seed gives it as <shoot>.<project>.<domain> (project %s)",
				Clip(domain), r.project())
		},
		lifts: func(old, cur *seedInfo) bool {
			return !equality.Semantic.DeepEqual(old.seed.Spec.DNS.Defaults, cur.seed.Spec.DNS.Defaults)
		},
	}},
	check: func(r *run, v *verdict) Filter {
		if r.defaultDomain && !r.givesDomain(v.info.seed) {
			return FilterDomain
		}
		return ""
	},
	prepare: (*run).prepareDomain,
	off: func(r *run) bool {
		_, ok := shootDomain(r.shoot)
		return !ok
	},
	headline: func(r *run, n int) string {
		domain, _ := shootDomain(r.shoot)
		return fmt.Sprintf("none of the %d seeds support the domain %q configured in the shoot specification", n, Clip(domain))
	},
}
