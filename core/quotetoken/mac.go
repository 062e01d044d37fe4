package quotetoken

// MAC writes the first MACLen bytes of HMAC-SHA256 over msg, under the key whose id is
// id, into out, and reports whether the keyring holds that id. Other self-verifying
// tokens (core/apikey's partner keys) use the keyring's HMAC this way. msg must not be
// the keyring's own scratch. It allocates nothing.
func (k *Keyring) MAC(id uint8, msg []byte, out *[MACLen]byte) bool {
	key := k.byID(id)
	if key == nil {
		return false
	}
	k.mac(key, msg)
	*out = [MACLen]byte(k.sum[:])
	return true
}

// AppendBase64URL appends src in base64url without padding (RFC 4648 §5), as
// base64.RawURLEncoding.AppendEncode does.
func AppendBase64URL(dst, src []byte) []byte { return appendBase64(dst, src) }
