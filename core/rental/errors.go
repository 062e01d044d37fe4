package rental

// Kind classifies an Error; the API layer maps each kind to one status.
type Kind uint8

const (
	// KindInvalid is a bad or missing parameter.
	KindInvalid Kind = iota + 1
	// KindNotFound is a resource or an offer that does not exist.
	KindNotFound
	// KindMethod is a way of asking the operation does not allow (the method).
	KindMethod
	// KindUnavailable is maintenance or data that could not be loaded.
	KindUnavailable
	// KindInternal is a bug; its message is never shown to clients.
	KindInternal
)

// Error is the one error type of the API: a kind, the parameter it concerns (may be
// empty) and a message for the client that names that parameter.
type Error struct {
	Kind    Kind
	Param   string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Invalid returns a KindInvalid error about param; msg must name param.
func Invalid(param, msg string) *Error { return &Error{Kind: KindInvalid, Param: param, Message: msg} }

// NotFound returns a KindNotFound error.
func NotFound(param, msg string) *Error {
	return &Error{Kind: KindNotFound, Param: param, Message: msg}
}
