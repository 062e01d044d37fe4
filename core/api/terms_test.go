package api

import (
	"math"

	"github.com/campervan/agent-api/core/rental"
	"github.com/campervan/agent-api/core/wire"
)

// appendHireTermsReference is termsAt with the appenders (TestQuoteAtRoom's reference).
func appendHireTermsReference(b []byte, t *rental.HireTerms) []byte {
	b = wire.Put(b, `,"terms":{"excess":`)
	b = wire.AppendMoney(b, t.ExcessCents)
	b = wire.Put(b, `,"bond":`)
	b = wire.AppendMoney(b, t.BondCents)
	b = wire.Put(b, `,"cancellation":[`)
	for i := 0; i < t.NTiers; i++ {
		if i > 0 {
			b = wire.PutByte(b, ',')
		}
		b = t.Tiers[i].Until.AppendTo(wire.Put(b, `{"until":"`))
		b = wire.PutByte(wire.AppendMoney(wire.Put(b, `","fee":`), t.Tiers[i].FeeCents), '}')
	}
	b = wire.Put(b, `],"payment":[`)
	for i := 0; i < t.NPayments; i++ {
		if i > 0 {
			b = wire.PutByte(b, ',')
		}
		b = t.Payments[i].Due.AppendTo(wire.Put(b, `{"due":"`))
		b = wire.PutByte(wire.AppendMoney(wire.Put(b, `","amount":`), t.Payments[i].AmountCents), '}')
	}
	b = wire.AppendInt(wire.Put(b, `],"minimumDriverAge":`), int64(t.MinDriverAge))
	return wire.PutByte(b, '}')
}

// extremeTerms are a hire's terms at their largest: every tier and payment, amounts of
// c cents, the widest dates (none when lines is 0: the smallest).
func extremeTerms(c int64, lines int) rental.HireTerms {
	t := rental.HireTerms{ExcessCents: c, BondCents: c, MinDriverAge: math.MinInt}
	if lines == 0 {
		return t
	}
	t.NTiers, t.NPayments = len(t.Tiers), len(t.Payments)
	for i := range t.Tiers {
		t.Tiers[i] = rental.Tier{Until: rental.Date(math.MinInt32 + i), FeeCents: c}
	}
	for i := range t.Payments {
		t.Payments[i] = rental.Payment{Due: rental.Date(math.MaxInt32 - i), AmountCents: c}
	}
	return t
}
