// Package improveplan owns the plan of the improving plugins' moves
// (Rebalance, ComeHome) over a landscape: which shoots they would move,
// from where to where, when (each shoot's maintenance window) and how each
// seed's utilisation would change, decided as graft-descheduler decides
// (framework.ImprovementTarget) but over time, windows and churn limits set
// aside. `graftctl simulate --improve` prints it; the benchmark measures the
// moves it needs against a lower bound.
package improveplan
