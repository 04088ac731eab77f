package wefttemporal

import "errors"

// ErrUnknownPermit is what a Supplier reports (to its error hook, or
// Temporal's logger) when Temporal marks or releases a *worker.SlotPermit
// that no Supplier of this package issued: a nil permit, or one from
// another SlotSupplier. Nothing is released.
var ErrUnknownPermit = errors.New("weft/temporal: permit not issued by a weft Supplier")
