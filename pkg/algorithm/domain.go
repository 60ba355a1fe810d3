package algorithm

import (
	"strings"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

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

func (r *run) checkDomain(v *verdict) Filter {
	if r.defaultDomain && !r.givesDomain(v.info.seed) {
		return FilterDomain
	}
	return ""
}
