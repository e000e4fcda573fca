"""The scrubber's two corpora: secret shapes (every one redacted) and data shapes that look a
little like secrets (every one left exactly as it was). Issue 29 started them; issue 71 added
the data a tool really returns (digests in base64, UUIDs inside names, content ids, addresses,
numbers, short base64 binary) and the secrets a tryout saw pass (an empty URL user, Mailgun).

The fake keys are assembled from made-up pieces, so no scanner takes this file for a leak.
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid

ENV_TOKEN = "run-env-Tok3n-9x8y7w"           # the run's own ${NAME} value
FLAG_SECRET = "from-env-flag-42"               # a value given with --env
KNOWN = (ENV_TOKEN, FLAG_SECRET)

A36 = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"   # 36 letters and digits, made up
A72 = A36 + A36[::-1]
HEX32 = "0123456789abcdef" * 2
HEX64 = HEX32 + HEX32[::-1]
B64_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9EXAMPLEKEY"
B64_88 = base64.b64encode(hashlib.sha512(b"made-up account key").digest()).decode()
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

# (label, text, the secret part that must not survive)
SECRETS: list[tuple[str, str, str]] = [
    # the run's own secrets, in any form
    ("env value", f"denied for {ENV_TOKEN}", ENV_TOKEN),
    ("env value upper-cased", f"KEY IS {ENV_TOKEN.upper()}", ENV_TOKEN.upper()),
    ("env value lower-cased", f"key is {ENV_TOKEN.lower()}", ENV_TOKEN.lower()),
    ("env value base64", "b64 " + base64.b64encode(ENV_TOKEN.encode()).decode(),
     base64.b64encode(ENV_TOKEN.encode()).decode().rstrip("=")),
    ("env value url-quoted", "u=run-env-Tok3n-9x8y7w", ENV_TOKEN),
    ("--env value", f"server said {FLAG_SECRET}", FLAG_SECRET),
    # credentials by their place
    ("bearer header", "Authorization: Bearer abcDEF123456ghiJKL", "abcDEF123456ghiJKL"),
    ("bearer in prose", "denied for Bearer abcdefgh12345678", "abcdefgh12345678"),
    ("basic header", "Authorization: Basic dXNlcjpzM2NyZXQ=", "dXNlcjpzM2NyZXQ="),
    ("authorization without scheme", '{"Authorization": "raw-token-value-77"}',
     "raw-token-value-77"),
    ("x-api-key header", "X-Api-Key: a1b2c3d4e5f6a7b8c9d0", "a1b2c3d4e5f6a7b8c9d0"),
    ("URL password", "GET https://bob:hunter22@api.example.com/v1", "hunter22"),
    ("URL password with @", "postgres://admin:p@ss@w0rd@db.internal:5432/app", "p@ss@w0rd"),
    ("URL password, empty user", "redis://:s3cr3tpass@cache.internal:6379/0", "s3cr3tpass"),
    ("URL password, empty user, a word", "redis://:correcthorse@cache:6379", "correcthorse"),
    ("AMQP URL", "amqp://guest:guestpass42@rabbit:5672/vhost", "guestpass42"),
    ("MongoDB SRV URL", "mongodb+srv://admin:Pa55w0rd@cluster0.example.net/db", "Pa55w0rd"),
    ("proxy URL", "HTTPS_PROXY=http://proxyuser:proxypass1@proxy.corp:3128", "proxypass1"),
    ("curl -u", "curl -u admin:s3cretPass https://api.example.com/v1", "s3cretPass"),
    ("password= without digits", "config: password=correcthorsebattery, user=bob",
     "correcthorsebattery"),
    ("password= with digits", "config: password=hunter22, user=bob", "hunter22"),
    ("secret=", "secret=opensesame-plain", "opensesame-plain"),
    ("aws_secret_access_key=", f"aws_secret_access_key={B64_KEY}", B64_KEY),
    ("camelCase secret name", f'{{"awsSecretAccessKey": "{B64_KEY}"}}', B64_KEY),
    ("name with a glued prefix", "PGPASSWORD=correcthorse42 psql", "correcthorse42"),
    ("env export", "export MYSQL_ROOT_PASSWORD=correcthorse", "correcthorse"),
    (".npmrc auth token", "//registry.npmjs.org/:_authToken=npm-tok-1234abcd", "npm-tok-1234abcd"),
    ("JSON api_key", '{"api_key": "k3y-value-123"}', "k3y-value-123"),
    ("JSON client_secret", '{"client_secret": "my client secret value"}',
     "my client secret value"),
    ("JSON password with @", '{"password": "p@ss w0rd!"}', "p@ss w0rd!"),
    ("YAML db_password with digits", "db_password: s3cr3t-Pa55", "s3cr3t-Pa55"),
    ("connection string Password=", "Server=db;User Id=sa;Password=Tr0ub4dor&3;", "Tr0ub4dor"),
    ("Azure storage connection string", "DefaultEndpointsProtocol=https;AccountName=acct;"
     f"AccountKey={B64_88};EndpointSuffix=core.windows.net", B64_88[:40]),
    ("Twilio auth token by name", f"TWILIO_AUTH_TOKEN={HEX32}", HEX32),
    ("session cookie", f"Cookie: sessionid={HEX32}; theme=dark", HEX32),
    ("RSA private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7x\n"
     "-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA7x"),
    ("EC private key", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk\n"
     "-----END EC PRIVATE KEY-----", "MHcCAQEEIBkg4LVWM9nuwNSk"),
    ("OpenSSH private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n"
     "-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAA"),
    ("PGP private key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n"
     "lQOYBF9xkZ8BCADc3Qx\n=Ab1c\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBF9xkZ8BCADc3Qx"),
    ("private key cut short", '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADAN',
     "MIIEvQIBADAN"),
    ("base64 of a secret assignment", "blob " + base64.b64encode(
        b"password=correcthorsebattery").decode(), "cGFzc3dvcmQ9"),
    # keys by their provider's format
    ("OpenAI key", "sk-" + A36 + "xyz", "sk-" + A36),
    ("OpenAI project key", "use key sk-proj-" + A36 + " please", A36),
    ("OpenAI service account key", "sk-svcacct-" + A36, A36),
    ("Anthropic key", "sk-ant-api03-" + A36 + "-AA", A36),
    ("Anthropic admin key", "sk-ant-admin01-" + A36 + "-AA", A36),
    ("Stripe live key", "sk_live_" + A36[:24], A36[:24]),
    ("Stripe restricted key", "rk_live_" + A36[:24], A36[:24]),
    ("Stripe webhook secret", "whsec_" + A36[:32], A36[:32]),
    ("GitHub token", "token ghp_" + A36, A36),
    ("GitHub fine-grained token", "github_pat_11ABCDEFG0" + A36 + "_" + A36, A36),
    ("GitHub OAuth token", "gho_" + A36, A36),
    ("GitHub app token", "ghs_" + A36, A36),
    ("GitLab token", "glpat-" + A36[:20], A36[:20]),
    ("GitLab runner token", "runner glrt-" + A36[:20], A36[:20]),
    ("GitLab runner registration token", "GR1348941" + A36[:20], A36[:20]),
    ("Discord bot token", "MTA1NzY4Mzk5NjQ4Mjc4MzI3Mg.GbX9zQ." + A36[:27], "GbX9zQ"),
    ("Slack bot token", "xoxb-1234567890-0987654321-" + A36[:24], A36[:24]),
    ("Slack user token", "xoxp-1234567890-1234567890-1234567890-" + HEX32, HEX32),
    ("Slack webhook", "https://hooks.slack.com/services/T0000AAAA/B0000BBBB/" + A36[:24],
     A36[:24]),
    ("AWS access key id", "aws AKIAIOSFODNN7EXAMPLE id", "AKIAIOSFODNN7EXAMPLE"),
    ("AWS key id, other prefix", "id ABIAIOSFODNN7EXAMPLE", "ABIAIOSFODNN7EXAMPLE"),
    ("Google API key", "key=AIza" + A36[:35], A36[:35]),
    ("Google OAuth token", "ya29." + A36 + "_x", A36),
    ("Google OAuth client secret", "GOCSPX-" + A36[:28], A36[:28]),
    ("Hugging Face token", "hf_" + A36[:34], A36[:34]),
    ("npm token", "npm_" + A36, A36),
    ("PyPI token", "pypi-AgEIcHlwaS5vcmc" + A36 + A36[:20], A36),
    ("SendGrid key", "SG." + A36[:22] + "." + A36[:30], A36[:22]),
    ("Twilio API key", "SK0123456789abcdef0123456789abcdef", "SK0123456789abcdef"),
    ("Mailchimp key", "0123456789abcdef0123456789abcdef-us14", "0123456789abcdef-us14"),
    ("Mailgun key", f"api key-{HEX32} for mg.example.com", HEX32),
    ("Telegram bot token", "bot123456789:AA" + A36[:33], A36[:33]),
    ("Databricks token", "dapi" + HEX32, HEX32),
    ("DigitalOcean token", "dop_v1_" + HEX64, HEX64),
    ("DigitalOcean OAuth token", "doo_v1_" + HEX64, HEX64),
    ("Shopify token", "shpat_" + HEX32, HEX32),
    ("Square token", "sq0atp-" + A36[:22], A36[:22]),
    ("HashiCorp Vault token", "hvs." + A72[:95], A72[:95]),
    ("age secret key", "AGE-SECRET-KEY-1" + (BECH32 * 2)[:58].upper(),
     (BECH32 * 2)[:58].upper()),
    ("Linear API key", "lin_api_" + A36 + "abcd", A36),
    ("Perplexity key", "pplx-" + A72[:48], A72[:48]),
    ("Heroku key", "HRKU-AA" + A72[:58], A72[:58]),
    ("Postman key", "PMAK-" + HEX32[:24] + "-" + HEX64[:34], HEX64[:34]),
    ("Sentry user token", "sntryu_" + HEX64, HEX64),
    ("Notion token", "ntn_12345678901" + A36[:35], A36[:35]),
    ("Grafana service account token", "glsa_" + A36[:32] + "_0a1b2c3d", A36[:32]),
    ("Azure AD client secret", "secret abc8Q~" + A36[:34], A36[:34]),
    ("JSON web token", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
     "dozjgNryP4J3jVmNHl0w5N", "dozjgNryP4J3jVmNHl0w5N"),
]

SHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
SHA256_B64 = base64.b64encode(hashlib.sha256(b"hello world\n").digest()).decode()
SHA512_B64 = base64.b64encode(hashlib.sha512(b"p2p-binary").digest()).decode()
BINARY_B64 = base64.b64encode(hashlib.sha512(b"p2p").digest()[:24]).decode()
UUID_A = "3f2c9a1e-7b4d-4e8f-9a6b-1c2d3e4f5a6b"
SSH_PUBLIC = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOpDYtIQlCx6jX1taxC1RY9YsBd5g6cLQbbNHpwzrVKB"
              " bob@laptop")
PEM_PUBLIC = ("-----BEGIN PUBLIC KEY-----\n"
              "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEbYkYudIbRWBu8fNo7/f+aa6xYUf0\n"
              "CfGqRNvpib9b4uNdGFF7o0PM7+tH4al7JTslFu8kuN7hdtFMcJsC5a5LuA==\n"
              "-----END PUBLIC KEY-----")

# data a tool may return: every one is left exactly as it was
DATA: list[str] = [
    # digests, in hex and in base64
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "Commit: 3F786850E387550FDAB836ED7E6DC881DE23001B\nAuthor: Alice <alice@example.com>",
    f"sha256:{SHA256}",
    f"checksum {SHA256} file.tar.gz",
    f"digest {HEX32}01234567 ok",
    "md5 d41d8cd98f00b204e9800998ecf8427e",
    "sha512 " + "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce" * 2,
    "integrity sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC",
    "docker pull python@sha256:" + SHA256,
    f'{{"ChecksumSHA256": "{SHA256_B64}"}}',
    f"x-amz-checksum-sha256: {SHA256_B64}",
    f'{{"hash": "{SHA512_B64}", "algorithm": "sha512"}}',
    "Content-MD5: XUFAKrxLKna5cZ2REBfFkg==",
    # UUIDs, alone and inside names
    str(uuid.UUID("123e4567-e89b-12d3-a456-426614174000")),
    "id 6F9619FF-8B86-D011-B42D-00C04FC964FF",
    "uuid=" + str(uuid.UUID(int=0x1234567890ABCDEF1234567890ABCDEF)),
    f'{{"Key": "uploads/2024/05/{UUID_A}/IMG_20240501_123456.jpg", "Size": 48213}}',
    f"s3://acme-exports/spark/part-00000-{UUID_A}-c000.snappy.parquet",
    f"invoice_{UUID_A.replace('-', '')}.pdf",
    # content ids and addresses
    "ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG",
    "cid bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
    "pay to bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    "bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297",
    "to 0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
    "tx 0x" + SHA256,
    "solana 7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV",
    "arn:aws:iam::123456789012:role/service-role/MyRole-abc123",
    # ids and numbers
    "ORD-2024-000123 and order_8f3a2b1c9d0e",
    "charge ch_3MqLiJLkdIwHu7ix0snN0B15 for customer cus_NffrFeUfNV2Hib",
    "ulid 01ARZ3NDEKTSV4RRFFQ69G5FAV, object 507f1f77bcf86cd799439011",
    "file 1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms in Drive",
    "trace 1-5759e988-bd862e3fe1be46a994272793 pod api-7d9f8b6c5d-x2k4p",
    "video dQw4w9WgXcQ, nanoid V1StGXR8_Z5jdHi6B-myT, push id -NqK8xZ1aB2cD3eF4gH5",
    "random aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z here",
    "gid://shopify/Product/10079785100 tracking 1Z999AA10123456784",
    "balance 123456789012345678901234567890 wei, id 1541815603606036480",
    "token: 12345678",
    '{"token": 12345678, "token_count": 4096}',
    '{"nextPageToken": "CgkIChIFCLr3rQE", "next_token": "c2VhcmNoOjQy"}',
    "0x" + "1f" * 40 + " (an integer of about 96 digits)",
    # short base64 binary, public keys
    f"nonce {BINARY_B64}",
    '{"thumb": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAA'
    'AABJRU5ErkJggg=="}',
    SSH_PUBLIC,
    PEM_PUBLIC,
    # base64 of text, URLs, prose
    "payload " + base64.b64encode(b"Hello, world! This is an ordinary payload.").decode(),
    "data " + base64.b64encode(json.dumps({"city": "Paris", "population": 2102650,
                                            "tags": ["capital", "france"]}).encode()).decode(),
    "url " + base64.urlsafe_b64encode(b"https://example.com/some/long/path?q=1").decode(),
    "https://api.example.com/v1/users?page=2&per_page=50",
    "ssh://git@github.com/org/repo.git or git@github.com:org/repo.git",
    "dsn https://3f2c9a1e7b4d4e8f9a6b1c2d3e4f5a6b@o123456.ingest.sentry.io/4504",
    "mail alice@example.com",
    "password: required, at least 8 characters",
    "api_key: Optional[str] = None",
    "token_count=128 max_tokens=256",
    '{"next_page_token": null, "auth": "required"}',
    "Use bearer authentication; basic information about the token 20240501",
    "2024-03-05T15:30:00+00:00 at 192.168.0.12",
    "get_current_weather_for_location_2 and ThisIsAVeryLongCamelCaseIdentifier42",
    "git log --format=%H abc1234",
    "pip install sk-learn-pipeline-extras",
]
