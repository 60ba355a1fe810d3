// Package framework owns the contract between graft-descheduler and its
// plugins: what a plugin sees of a seed (SeedState), what it answers
// (Candidates to evict, in order, and when to look again), how it may rule a
// seed out from the seed's own facts before its shoots are gathered
// (SeedFilter), and the registry
// that turns a configuration's plugin list into running plugins with decoded,
// defaulted and validated arguments. It also owns what makes a plugin an
// improving one (Candidate.Improves, ChurnLimited, ChurnArgs) and the one
// decision of where an improvement goes (ImprovementTarget), which the
// descheduler's passes and the improvement plans share. Plugins only decide;
// the descheduler applies the safety rules (requireFit, limits, dry-run) and
// writes.
package framework
