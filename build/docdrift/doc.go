// Package docdrift holds the test that the project's prose names only what exists: the
// tests and the files that README.md, RATIONALE.md, BENCHMARKS.md and docs/*.md name.
package docdrift
