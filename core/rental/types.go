package rental

// Package rental is the campervan rental domain: the catalog (load.go and load_*.go read and
// validate the snapshot), civil dates, search resolution and availability, and
// pricing. It knows nothing of HTTP: where a message names an operation a caller
// should use, the name comes from the layer above (Refs).
//
// This file holds the types the layer above uses; the domain may add unexported fields.

// Date is a civil date (no time zone): days since 1970-01-01.
type Date int32

// TimeSlot is one pick-up or drop-off time: Time is "HH:MM" (24 h), Day is
// "weekday" or "weekend".
type TimeSlot struct {
	Time string
	Day  string
}

// Depot is a place where vehicles are picked up and dropped off.
type Depot struct {
	ID           int64
	Name         string
	PickupTimes  []TimeSlot
	DropOffTimes []TimeSlot
	OpeningHours string // the spec's opening_hours_description
}

// Vehicle is a vehicle category (a model), with a fleet of units per depot.
type Vehicle struct {
	ID       int64
	Name     string
	ImageURL string
	// Class is the vehicle class code (policy.json's vehicle_classes: "compact", ...).
	Class string
	// Berths is how many people it sleeps.
	Berths int
	// Transmission is "manual" or "automatic".
	Transmission string
	// MinDriverAge is the youngest a driver may be (terms.json, by class).
	MinDriverAge int
}

// The transmissions a vehicle may have (vehicles.json's "transmission").
var Transmissions = [...]string{"manual", "automatic"}

// Accessory is an extra a vehicle can be hired with.
type Accessory struct {
	ID   int64
	Name string
	// PriceCents is the listed price: per day when PerDay, else per hire.
	PriceCents int64
	PerDay     bool
	// MaxChargeCents caps the charge for one unit over the whole hire (0: no cap).
	MaxChargeCents int64
	// MaxQuantity is the most units one hire may take (>= 1).
	MaxQuantity int
}

// InsurancePlan is an excess-reduction plan; PriceCents is per day (0 for the
// standard plan), charged for at most MaxDays days (0: no cap).
type InsurancePlan struct {
	ID         int64
	Name       string
	PriceCents int64
	MaxDays    int
	// ExcessCents is the most the hirer pays per incident, BondCents what is held on
	// the card at pick-up; Covers and Excludes say what it insures (terms.json).
	ExcessCents, BondCents int64
	Covers, Excludes       string
}

// Search is what an availability search or a quote asks about. Today is New
// Zealand's date at the time of the request (from the injected clock).
type Search struct {
	PickUpDepot  int64
	DropOffDepot int64
	PickUp       Date
	DropOff      Date
	Today        Date
	// Refs names the operations that list valid ids, for messages; nil: DefaultRefs.
	Refs *Refs
}

// Refs is how error messages name the operations a caller should use to find valid
// ids. The API layer fills it from its table of operations.
type Refs struct {
	Depots       string // "GET /depots"
	Vehicles     string // "GET /vehicles/availability"
	VehiclesPath string // "GET /vehicles/": followed by a vehicle id and one of the two below
	Accessories  string // "/accessories"
	Insurance    string // "/insurance-types"
}

// DefaultRefs are the operations' names without a base path.
var DefaultRefs = Refs{Depots: "GET /depots", Vehicles: "GET /vehicles/availability",
	VehiclesPath: "GET /vehicles/", Accessories: "/accessories", Insurance: "/insurance-types"}

func (s *Search) refs() *Refs {
	if s.Refs == nil {
		return &DefaultRefs
	}
	return s.Refs
}

// Offer is one vehicle available for a Search.
type Offer struct {
	Vehicle *Vehicle
	// Index is the vehicle's position in Catalog.Vehicles (its dense index).
	Index int
	// Days is the number of charged hire days.
	Days int
	// RentalCents is the rental fee for the whole period (the quote's rentalFee).
	RentalCents int64
	// DailyRateCents is the rentalDailyRate shown in search results.
	DailyRateCents int64
	// RouteCents is the one-way route fee of the hire (0 for a round trip or when
	// waived): the quote's routeFee.
	RouteCents int64
	// TotalCents is RentalCents + RouteCents: the quote's totalAmount without extras.
	TotalCents int64
}

// Filter narrows an availability search; the zero Filter keeps every vehicle.
type Filter struct {
	MinBerths     int    // at least this many berths (0: any)
	Transmission  string // "manual" or "automatic" ("": any)
	Class         string // a class code ("": any)
	MaxTotalCents int64  // TotalCents at most this (0: any)
	VehicleID     int64  // only this vehicle (0: any)
	DriverAge     int    // only vehicles a driver of this age may hire (0: any)
}

// Keep reports whether the offer for vehicle v with total cents passes f.
func (f *Filter) Keep(v *Vehicle, totalCents int64) bool {
	return (f.MinBerths == 0 || v.Berths >= f.MinBerths) &&
		(f.Transmission == "" || v.Transmission == f.Transmission) &&
		(f.Class == "" || v.Class == f.Class) &&
		(f.MaxTotalCents == 0 || totalCents <= f.MaxTotalCents) &&
		(f.VehicleID == 0 || v.ID == f.VehicleID) &&
		(f.DriverAge == 0 || f.DriverAge >= v.MinDriverAge)
}

// Pick is one accessory chosen for a quote.
type Pick struct {
	ID       int64
	Quantity int
}

// QuoteRequest is a Search plus the chosen vehicle and extras. Insurance 0 means none.
type QuoteRequest struct {
	Search
	VehicleID   int64
	Accessories []Pick
	InsuranceID int64
	DriverAge   int // the driver's age (0: not given)
}

// QuotedAccessory is one accessory line of a quote.
type QuotedAccessory struct {
	Accessory *Accessory
	Quantity  int
	CostCents int64
}

// Quote is a priced hire. TotalCents = Rental + Route + Accessories + Insurance.
type Quote struct {
	Vehicle          *Vehicle
	Days             int
	RentalCents      int64
	RouteCents       int64
	AccessoriesCents int64
	InsuranceCents   int64
	TotalCents       int64
	Accessories      []QuotedAccessory
	Insurance        *InsurancePlan // nil when none was chosen
	Terms            HireTerms      // the terms of this hire (terms.go)
}
