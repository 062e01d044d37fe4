package rental

// Kind classifies an Error; the API layer maps each kind to one status.
type Kind uint8

const (
	// KindInvalid is a bad or missing parameter.
	KindInvalid Kind = iota + 1
	// KindNotFound is a resource or an offer that does not exist.
	KindNotFound
	// KindUnavailable is maintenance or data that could not be loaded.
	KindUnavailable
	// KindInternal is a bug; its message is never shown to clients.
	KindInternal
)

// The machine codes of errors (the "code" member of an error body). They are a stable,
// documented list (README, openapi.json's Error schema): a client may branch on them.
// The API adds its own refusals' (a method, the rate limit: core/api/respond.go).
const (
	CodeMissingParameter  = "missing_parameter"  // a required parameter is absent (or empty)
	CodeInvalidParameter  = "invalid_parameter"  // a value of the wrong form or out of range
	CodeUnknownParameter  = "unknown_parameter"  // a parameter the operation does not take
	CodeRepeatedParameter = "repeated_parameter" // a parameter given twice
	CodeInvalidRequest    = "invalid_request"    // the URL or query string itself (length, escapes, count)
	CodeUnknownID         = "unknown_id"         // a depot, vehicle, accessory or plan id that does not exist
	CodeNotOffered        = "not_offered"        // an accessory or plan the vehicle is not hired with
	CodeTooMany           = "too_many"           // more ids or units than allowed
	CodeDateOrder         = "date_order"         // drop-off before pick-up, latest before earliest
	CodeDateInPast        = "date_in_past"
	CodeNoticePeriod      = "notice_period" // inside the pick-up depot's notice days
	CodeTooFarAhead       = "too_far_ahead" // beyond max_advance_days
	CodeNoRates           = "no_rates"      // outside the published season calendar
	CodeTooLong           = "too_long"      // a hire (or a calendar range) longer than allowed
	CodeDepotClosed       = "depot_closed"
	CodeRouteNotOffered   = "route_not_offered"
	CodeNotBasedHere      = "not_based_here" // the vehicle has no fleet at the pick-up depot
	CodeMinHire           = "min_hire"       // shorter than the vehicle's season minimum
	CodeBookedOut         = "booked_out"
	CodeDriverTooYoung    = "driver_too_young" // the vehicle's class needs an older driver
	CodeNotFound          = "not_found"        // no such path
	CodeUnavailable       = "unavailable"      // maintenance, data not loaded
	CodeInternal          = "internal"         // a bug (logged)
	CodePageExpired       = "page_expired"     // a page token of another search or an older inventory
)

// Error is the one error type of the API: a kind, a machine code, the parameter it
// concerns (may be empty) and a message for the client that names that parameter.
type Error struct {
	Kind    Kind
	Code    string // one of the Code constants; "" means the default of Kind (DefaultCode)
	Param   string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// DefaultCode returns e's code, or the default of its kind when it has none.
func (e *Error) DefaultCode() string {
	if e.Code != "" {
		return e.Code
	}
	switch e.Kind {
	case KindInvalid:
		return CodeInvalidParameter
	case KindNotFound:
		return CodeNotFound
	case KindUnavailable:
		return CodeUnavailable
	}
	return CodeInternal
}

// Invalid returns a KindInvalid error about param; msg must name param.
func Invalid(param, msg string) *Error { return &Error{Kind: KindInvalid, Param: param, Message: msg} }

// InvalidCode returns a KindInvalid error with a code.
func InvalidCode(code, param, msg string) *Error {
	return &Error{Kind: KindInvalid, Code: code, Param: param, Message: msg}
}

// NotFound returns a KindNotFound error.
func NotFound(param, msg string) *Error {
	return &Error{Kind: KindNotFound, Param: param, Message: msg}
}
