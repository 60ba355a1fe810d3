// Package comehome is the ComeHome descheduler plugin (off by default): a
// shoot whose seed lies outside its own region moves, in its maintenance
// window, to a seed nearer its region once the scheduler would choose one
// now (a seed opened in its region, or room made in one). Where it goes is
// the scheduler's choice; the plugin accepts the move only when that seed is
// closer by the strategy's measure (algorithm.Reconsideration.Closer). Its
// moves are improvements (framework.Churn).
package comehome
