package rental

// Catalog is the prepared snapshot: every lookup the request path needs, indexed
// by dense integer positions. It is immutable after LoadCatalog, so one Catalog
// may serve any number of requests; slices it returns must not be modified.
type Catalog struct {
	version    string
	currency   string
	maxHire    int
	maxAdvance int

	// Depots, all of them (active or not) sorted by id; depotIdx finds an id's index.
	depots   []Depot
	depotX   []depotData
	depotIdx idIndex
	active   []Depot

	// Vehicles sorted by id; vehicleIdx finds an id's index.
	vehicles   []Vehicle
	vehicleX   []vehicleData
	vehicleIdx idIndex

	// Season calendar: day index i is calStart+i; seasonOf[i] is its season;
	// seasonPre[s*(calDays+1)+i] counts the days of season s before day i.
	seasonNames []string
	calStart    Date
	calDays     int
	seasonOf    []uint8
	seasonPre   []int32

	// routeFee[from*nDepots+to] is the one-way fee, -1 when not offered.
	routeFee []int64
	waiver   int

	// Per vehicle class (index into classes), sorted by id.
	classes      []string
	accByClass   [][]Accessory
	insByClass   [][]InsurancePlan
	accessoryIDs idNames // every accessory id's name, for messages
	insuranceIDs idNames

	// Fleet per (vehicle, depot) pair p = vehicle*nDepots + depot: fleet[p] units.
	// fleetHash covers the fleet and the calendar: an Inventory is built for one.
	fleet     []int32
	fleetHash uint64

	// inv is the bookings (inventory.go): the bundled ones after LoadCatalog, another
	// in the copy WithInventory returns.
	inv *Inventory
}

// Bundled returns the catalog of the snapshot bundled in data/, prepared at build time
// (bundled_gen.go, written by build/checksnapshot from LoadCatalog's result): the
// Worker starts with it instead of parsing the JSON at instance start. It is
// shared and must not be modified, as any Catalog.
func Bundled() *Catalog { return &preparedCatalog }

// depotData is what the Catalog knows of a depot beyond the public Depot.
type depotData struct {
	active bool
	notice int
	closed []closure // sorted by date
}

type closure struct {
	date Date
	name string
}

// vehicleData is what the Catalog knows of a vehicle beyond the public Vehicle.
type vehicleData struct {
	class   int32
	rates   [maxSeasons]int64
	minDays [maxSeasons]int32
}

// span is an inclusive range of calendar day indices.
type span struct{ from, to int32 }

// Version returns a short stable hash of the snapshot content (FNV-64a over every
// file, in name order), suitable for an ETag.
func (c *Catalog) Version() string { return c.version }

// Currency returns the currency code of every amount (from policy.json).
func (c *Catalog) Currency() string { return c.currency }

// MaxHireDays returns the longest hire accepted, in charged days.
func (c *Catalog) MaxHireDays() int { return c.maxHire }

// MaxAdvanceDays returns how many days after today a pick-up may be.
func (c *Catalog) MaxAdvanceDays() int { return c.maxAdvance }

// CalendarRange returns the first and last dates that have published rates.
func (c *Catalog) CalendarRange() (first, last Date) {
	return c.calStart, c.calStart.AddDays(c.calDays - 1)
}

// Depots returns the active depots sorted by id.
func (c *Catalog) Depots() []Depot { return c.active }

// Depot returns the active depot with that id, or nil.
func (c *Catalog) Depot(id int64) *Depot {
	i, ok := c.depotIdx.find(id)
	if !ok || !c.depotX[i].active {
		return nil
	}
	return &c.depots[i]
}

// Vehicles returns all vehicles sorted by id.
func (c *Catalog) Vehicles() []Vehicle { return c.vehicles }

// Vehicle returns the vehicle with that id, or nil.
func (c *Catalog) Vehicle(id int64) *Vehicle {
	i, ok := c.vehicleIdx.find(id)
	if !ok {
		return nil
	}
	return &c.vehicles[i]
}

// VehicleIndex returns the dense index of v (its position in Vehicles), or -1.
func (c *Catalog) VehicleIndex(v *Vehicle) int {
	if v == nil {
		return -1
	}
	i, ok := c.vehicleIdx.find(v.ID)
	if !ok {
		return -1
	}
	return int(i)
}

// AccessoryIDs returns every accessory's id in ascending order, and its name at the
// same index; InsuranceIDs the insurance plans'. AccessoryIndex and InsuranceIndex
// return an id's index there, or -1 (the API renders each item's JSON once).
func (c *Catalog) AccessoryIDs() ([]int64, []string) {
	return c.accessoryIDs.idx.ids, c.accessoryIDs.names
}

// InsuranceIDs returns every insurance plan's id in ascending order, and its name at
// the same index (see AccessoryIDs).
func (c *Catalog) InsuranceIDs() ([]int64, []string) {
	return c.insuranceIDs.idx.ids, c.insuranceIDs.names
}

// AccessoryIndex returns the index of accessory id in AccessoryIDs, or -1.
func (c *Catalog) AccessoryIndex(id int64) int {
	if i, ok := c.accessoryIDs.idx.find(id); ok {
		return int(i)
	}
	return -1
}

// InsuranceIndex returns the index of insurance plan id in InsuranceIDs, or -1.
func (c *Catalog) InsuranceIndex(id int64) int {
	if i, ok := c.insuranceIDs.idx.find(id); ok {
		return int(i)
	}
	return -1
}

// Accessories returns the accessories offered with v (by its class), sorted by id.
func (c *Catalog) Accessories(v *Vehicle) []Accessory {
	i := c.VehicleIndex(v)
	if i < 0 {
		return nil
	}
	return c.accByClass[c.vehicleX[i].class]
}

// InsurancePlans returns the insurance plans offered with v, sorted by id; the
// list always includes a plan with price 0 (the standard excess).
func (c *Catalog) InsurancePlans(v *Vehicle) []InsurancePlan {
	i := c.VehicleIndex(v)
	if i < 0 {
		return nil
	}
	return c.insByClass[c.vehicleX[i].class]
}

// SeasonOf returns the season name of d, or "" outside the calendar.
func (c *Catalog) SeasonOf(d Date) string {
	i := int(d) - int(c.calStart)
	if i < 0 || i >= c.calDays {
		return ""
	}
	return c.seasonNames[c.seasonOf[i]]
}

// Classes returns the vehicle class codes (policy.json's vehicle_classes), in order.
func (c *Catalog) Classes() []string { return c.classes }
