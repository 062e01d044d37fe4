package core

// Kind classifies an Error; ErrorStatus maps each kind to one HTTP status.
type Kind uint8

const (
	// KindInvalid is a bad or missing parameter: 400.
	KindInvalid Kind = iota + 1
	// KindNotFound is a resource or an offer that does not exist: 404.
	KindNotFound
	// KindMethod is a method the path does not allow: 405.
	KindMethod
	// KindUnavailable is maintenance or data that could not be loaded: 503.
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

// ErrorStatus returns the HTTP status for an error kind.
func ErrorStatus(k Kind) int {
	switch k {
	case KindInvalid:
		return 400
	case KindNotFound:
		return 404
	case KindMethod:
		return 405
	case KindUnavailable:
		return 503
	}
	return 500
}
