// Package slottest has slot suppliers for the module's tests: ones that
// fail, or wait, the way a user's supplier might, so that the packages
// that reserve slots (scope, par) can be held to how they report it.
package slottest
