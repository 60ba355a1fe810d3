// Package describe owns `graftctl describe shoot`: a shoot's placement-related
// fields, its last Events, and, for a shoot without a seed, the shared
// algorithm's explanation of why each seed of the live landscape was rejected.
package describe
