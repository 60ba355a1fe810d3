// Package helper holds the predicates and the formatting of the
// core.graft.dev/v1alpha1 types that more than one component needs: looking
// up a seed's conditions, the seed readiness rules (one function per question
// asked of a seed), the default effect of a taint, how taints and
// tolerations are written for people, and the format of the annotations in
// which graft records a shoot's placement and evictions. Keeping them next to the types means a
// rule is written once, and graftctl shows what the daemons decide on.
//
// It imports only the API types and apimachinery, never graft's
// implementation.
package helper
