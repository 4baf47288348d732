package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Test secrets are generated, not written out: the source then holds no
// string that looks like a live credential, and each run uses the same
// values (fixed seed).
type tokens struct{ rng *rand.Rand }

const (
	lowerA = "abcdefghijklmnopqrstuvwxyz"
	upperA = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits = "0123456789"
	alnum  = lowerA + upperA + digits
	hexLow = "0123456789abcdef"
	b64    = alnum + "+/"
	b64url = alnum + "-_"
)

func (t tokens) of(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[t.rng.IntN(len(alphabet))]
	}
	return string(b)
}

// example is one text for a rule; secret, when set, is the secret the
// rule must report.
type example struct {
	text, secret string
}

type ruleExamples struct {
	positive []example
	negative []string
}

func builtinExamples() map[string]ruleExamples {
	t := tokens{rand.New(rand.NewPCG(2026, 11))}
	p := func(text, secret string) example { return example{text, secret} }
	hex := func(n int) string { return t.of(hexLow, n) }
	an := func(n int) string { return t.of(alnum, n) }
	up := func(n int) string { return t.of(upperA+digits, n) }
	url := func(n int) string { return t.of(b64url, n) }

	aws := "AKIA" + t.of("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
	awsSecret := t.of(b64, 40)
	gcp := "AIza" + url(35)
	gocspx := "GOCSPX-" + url(28)
	refresh := "1//0" + url(60)
	ya29 := "ya29." + url(120)
	accKey := t.of(b64, 86) + "=="
	sasKey := t.of(b64, 43) + "="
	azure := an(3) + "8Q~" + t.of(alnum+"_~.-", 32)
	dop := "dop_v1_" + hex(64)
	ltai := "LTAI" + an(20)
	hrku := "HRKU-AA" + url(58)
	cloudinarySecret := url(27)
	sbp := "sbp_" + hex(40)
	fly := "fm2_" + t.of(b64+"=_-", 150)
	rnd := "rnd_" + an(32)
	ghp := "ghp_" + an(36)
	ghFine := "github_pat_" + t.of(alnum+"_", 82)
	gho := "gho_" + an(36)
	ghs := "ghs_" + an(36)
	ghr := "ghr_" + an(76)
	glpat := "glpat-" + url(20)
	glrt := "glrt-" + url(27) + ".01" + t.of(lowerA+digits, 7)
	glptt := "glptt-" + hex(40)
	gldt := "gldt-" + url(20)
	atbb := "ATBB" + an(32)
	atatt := "ATATT3" + t.of(alnum+"_=-", 180)
	ccipat := "CCIPAT_" + an(22) + "_" + hex(40)
	npm := "npm_" + an(36)
	npmrc := url(36)
	pypi := "pypi-AgEIcHlwaS5vcmc" + url(80)
	gems := "rubygems_" + hex(48)
	nuget := "oy2" + t.of(lowerA+digits, 43)
	dckr := "dckr_pat_" + url(27)
	akcp := "AKCp" + an(69)
	hvs := "hvs." + url(95)
	atlas := an(14) + ".atlasv1." + t.of(alnum+"_=-", 67)
	doppler := "dp.pt." + an(43)
	pul := "pul-" + hex(40)
	dapi := "dapi" + hex(32)
	glc := "glc_" + t.of(alnum+"+/", 60) + "=="
	glsa := "glsa_" + an(32) + "_" + t.of("0123456789abcdefABCDEF", 8)
	sntrys := "sntrys_eyJ" + t.of(alnum+"+/=_", 120)
	sntryu := "sntryu_" + hex(64)
	nrak := "NRAK-" + up(27)
	dt := "dt0c01." + up(24) + "." + up(64)
	pmak := "PMAK-" + hex(24) + "-" + hex(34)
	pscale := "pscale_tkn_" + t.of(alnum+"=._-", 43)
	pnu := "pnu_" + an(36)
	lin := "lin_api_" + an(40)
	ntn := "ntn_" + t.of(digits, 11) + an(35)
	openai := "sk-proj-" + url(74) + "T3BlbkFJ" + url(74)
	openaiLegacy := "sk-" + an(20) + "T3BlbkFJ" + an(20)
	anthropic := "sk-ant-api03-" + url(93) + "AA"
	hf := "hf_" + t.of(lowerA+upperA, 34)
	xoxb := "xoxb-" + t.of(digits, 12) + "-" + t.of(digits, 13) + "-" + an(24)
	xoxp := "xoxp-" + t.of(digits, 12) + "-" + t.of(digits, 12) + "-" + t.of(digits, 13) + "-" + hex(32)
	xapp := "xapp-1-" + up(11) + "-" + t.of(digits, 13) + "-" + hex(64)
	slackHook := "T" + up(10) + "/B" + up(10) + "/" + an(24)
	discordHook := url(68)
	teamsSecret := hex(32)
	uuid := func() string { return hex(8) + "-" + hex(4) + "-" + hex(4) + "-" + hex(4) + "-" + hex(12) }
	chatToken := t.of(alnum+"_%=-", 43)
	telegram := t.of(digits, 10) + ":AA" + url(33)
	twilio := "SK" + hex(32)
	sendgrid := "SG." + url(22) + "." + url(43)
	mailgun := "key-" + hex(32)
	mailchimp := hex(32) + "-us12"
	stripe := "sk_live_" + an(40)
	whsec := "whsec_" + an(32)
	square := "EAAA" + url(60)
	sq0csp := "sq0csp-" + url(43)
	braintree := "access_token$production$" + t.of(lowerA+digits, 16) + "$" + hex(32)
	shpat := "shpat_" + hex(32)
	rzp := "rzp_live_" + an(14)
	flw := "FLWSECK_TEST-" + hex(32) + "-X"
	plaid := "access-sandbox-" + uuid()
	shippo := "shippo_live_" + hex(40)
	fb := "EAACEdEose0cBA" + an(60)
	twitter := strings.Repeat("A", 22) + t.of(alnum+"%", 80)
	mapbox := "sk.eyJ" + url(80) + "." + url(22)
	fcm := "AAAA" + url(7) + ":APA91b" + url(134)
	ops := "ops_eyJ" + t.of(alnum+"+/", 300)
	age := "AGE-SECRET-KEY-1" + t.of("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
	jwt := "eyJ" + url(30) + ".eyJ" + url(60) + "." + url(43)
	pemBody := ""
	for range 6 {
		pemBody += t.of(b64, 64) + "\n"
	}
	dbPass := an(16)
	jdbcPass := an(14)
	urlPass := an(12)
	generic := an(32)

	return map[string]ruleExamples{
		"aws-access-key-id": {
			[]example{p("aws_access_key_id = "+aws, aws), p(`"AccessKeyId": "`+aws+`"`, aws)},
			[]string{"AKIA" + strings.Repeat("A", 16), "AKIA" + t.of(lowerA, 16), "XAKIA" + up(16), "AKIA" + up(12)},
		},
		"aws-secret-access-key": {
			[]example{p("aws_secret_access_key = "+awsSecret, awsSecret), p(`AWS_SECRET = "`+awsSecret+`"`, awsSecret)},
			[]string{"aws_secret_access_key = " + strings.Repeat("a", 40), "aws_secret_access_key = " + t.of(b64, 30), "secret_access_key = " + awsSecret},
		},
		"gcp-api-key": {
			[]example{p(`apiKey: "`+gcp+`",`, gcp)},
			[]string{"AIza" + url(20), "AIza" + url(40)},
		},
		"gcp-service-account-key": {
			[]example{p(`{ "type": "service_account", "project_id": "p" }`, "")},
			[]string{`{ "type": "authorized_user" }`, `service_account = true`},
		},
		"gcp-oauth-client-secret": {
			[]example{p("client_secret="+gocspx, gocspx)},
			[]string{"GOCSPX-" + url(10), "GOCSPX-" + url(40)},
		},
		"google-oauth-refresh-token": {
			[]example{p("refresh_token: "+refresh, refresh)},
			[]string{"1//0" + url(10), "1//0" + strings.Repeat("a", 50)},
		},
		"google-oauth-access-token": {
			[]example{p("Authorization: Bearer "+ya29, ya29)},
			[]string{"ya29." + url(10), "ya29." + strings.Repeat("ab", 30)},
		},
		"azure-storage-account-key": {
			[]example{p("DefaultEndpointsProtocol=https;AccountName=x;AccountKey="+accKey+";EndpointSuffix=core.windows.net", accKey)},
			[]string{"AccountKey=" + t.of(b64, 40) + "==", "AccountKey=<your key>"},
		},
		"azure-shared-access-key": {
			[]example{p("Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=r;SharedAccessKey="+sasKey, sasKey)},
			[]string{"SharedAccessKey=" + t.of(b64, 20) + "=", "SharedAccessKeyName=RootManageSharedAccessKey"},
		},
		"azure-ad-client-secret": {
			[]example{p(`"clientSecret": "`+azure+`"`, azure)},
			[]string{an(3) + "8Q~" + an(10), "xQ~" + an(34)},
		},
		"digitalocean-token": {
			[]example{p("DIGITALOCEAN_TOKEN="+dop, dop)},
			[]string{"dop_v1_" + hex(40), "dop_v2_" + hex(64)},
		},
		"alibaba-access-key-id": {
			[]example{p("access_key_id: "+ltai, ltai)},
			[]string{"LTAI" + an(10), "LTAI" + strings.Repeat("a", 20)},
		},
		"heroku-api-key": {
			[]example{p("HEROKU_API_KEY="+hrku, hrku)},
			[]string{"HRKU-AA" + url(20), "HRKU-BB" + url(58)},
		},
		"cloudinary-url": {
			[]example{p("CLOUDINARY_URL=cloudinary://"+t.of(digits, 15)+":"+cloudinarySecret+"@demo", cloudinarySecret)},
			[]string{"cloudinary://" + t.of(digits, 15) + "@demo", "cloudinary://key:secret@demo"},
		},
		"supabase-access-token": {
			[]example{p("SUPABASE_ACCESS_TOKEN="+sbp, sbp)},
			[]string{"sbp_" + hex(20), "sbp_" + an(40)},
		},
		"flyio-token": {
			[]example{p("FLY_API_TOKEN=FlyV1 "+fly, fly)},
			[]string{"FlyV1 fm2_" + url(20), "flyv1 " + fly},
		},
		"render-api-key": {
			[]example{p("RENDER_API_KEY="+rnd, rnd)},
			[]string{"rnd_" + an(20), "rnd_" + strings.Repeat("x", 32)},
		},
		"github-pat": {
			[]example{p("GITHUB_TOKEN="+ghp, ghp), p(`token: "`+ghp+`"`, ghp)},
			[]string{"ghp_" + an(30), "ghp_" + an(40), "xghp_" + an(36)},
		},
		"github-fine-grained-pat": {
			[]example{p("GH_TOKEN="+ghFine, ghFine)},
			[]string{"github_pat_" + an(40)},
		},
		"github-oauth-token": {
			[]example{p("oauth="+gho, gho)},
			[]string{"gho_" + an(20)},
		},
		"github-app-token": {
			[]example{p("token="+ghs, ghs)},
			[]string{"ghs_" + an(12), "ghx_" + an(36)},
		},
		"github-refresh-token": {
			[]example{p("refresh="+ghr, ghr)},
			[]string{"ghr_" + an(20)},
		},
		"gitlab-pat": {
			[]example{p("GITLAB_TOKEN="+glpat, glpat), p("private_token: "+glpat+"\n", glpat)},
			[]string{"glpat-" + url(10), "glpat_" + url(20)},
		},
		"gitlab-runner-token": {
			[]example{p("token = \""+glrt+"\"", glrt)},
			[]string{"glrt-" + url(8)},
		},
		"gitlab-pipeline-trigger-token": {
			[]example{p("TRIGGER="+glptt, glptt)},
			[]string{"glptt-" + hex(20), "glptt-" + an(40)},
		},
		"gitlab-deploy-token": {
			[]example{p("password: "+gldt, gldt)},
			[]string{"gldt-" + url(10), "gldt-" + url(30)},
		},
		"bitbucket-app-password": {
			[]example{p("BITBUCKET_APP_PASSWORD="+atbb, atbb)},
			[]string{"ATBB" + an(10), "ATBB" + strings.Repeat("A", 32)},
		},
		"atlassian-api-token": {
			[]example{p("JIRA_API_TOKEN="+atatt, atatt)},
			[]string{"ATATT3" + an(40)},
		},
		"circleci-personal-token": {
			[]example{p("CIRCLE_TOKEN="+ccipat, ccipat)},
			[]string{"CCIPAT_" + an(22) + "_" + hex(20)},
		},
		"npm-access-token": {
			[]example{p("NPM_TOKEN="+npm, npm)},
			[]string{"npm_" + an(20), "npm_" + strings.Repeat("a", 36), "npm_install_dependencies_for_the_workspace"},
		},
		"npmrc-auth-token": {
			[]example{p("//registry.npmjs.org/:_authToken="+npmrc, npmrc)},
			[]string{"//registry.npmjs.org/:_authToken=${NPM_TOKEN}", "_authToken=" + npmrc},
		},
		"pypi-token": {
			[]example{p("password = "+pypi, pypi)},
			[]string{"pypi-AgEIcHlwaS5vcmc" + url(20), "pypi-" + url(80)},
		},
		"rubygems-api-key": {
			[]example{p("GEM_HOST_API_KEY="+gems, gems)},
			[]string{"rubygems_" + hex(20)},
		},
		"nuget-api-key": {
			[]example{p("NUGET_API_KEY="+nuget, nuget)},
			[]string{"oy2" + t.of(lowerA, 20), "oy2" + strings.Repeat("a", 43)},
		},
		"docker-hub-pat": {
			[]example{p("DOCKER_PASSWORD="+dckr, dckr)},
			[]string{"dckr_pat_" + url(10), "dckr_pat_" + url(40)},
		},
		"jfrog-api-key": {
			[]example{p("ARTIFACTORY_API_KEY="+akcp, akcp)},
			[]string{"AKCp" + an(30)},
		},
		"hashicorp-vault-token": {
			[]example{p("VAULT_TOKEN="+hvs, hvs)},
			[]string{"hvs." + url(20), "vault.hvs.config"},
		},
		"terraform-cloud-token": {
			[]example{p(`token = "`+atlas+`"`, atlas)},
			[]string{an(14) + ".atlasv1." + an(20), "atlasv1." + an(67)},
		},
		"doppler-token": {
			[]example{p("DOPPLER_TOKEN="+doppler, doppler)},
			[]string{"dp.pt." + an(10), "dp.xx." + an(43)},
		},
		"pulumi-access-token": {
			[]example{p("PULUMI_ACCESS_TOKEN="+pul, pul)},
			[]string{"pul-" + hex(20), "pul-" + an(40) + "xyz"},
		},
		"databricks-token": {
			[]example{p("DATABRICKS_TOKEN="+dapi, dapi)},
			[]string{"dapi" + hex(20), "dapi" + strings.Repeat("0", 32)},
		},
		"grafana-token": {
			[]example{p("GRAFANA_TOKEN="+glc, glc), p("sa="+glsa, glsa)},
			[]string{"glc_" + an(10), "glsa_" + an(32)},
		},
		"sentry-token": {
			[]example{p("SENTRY_AUTH_TOKEN="+sntrys, sntrys), p("SENTRY_AUTH_TOKEN="+sntryu, sntryu)},
			[]string{"sntrys_" + an(50), "sntryu_" + hex(20)},
		},
		"new-relic-api-key": {
			[]example{p("NEW_RELIC_API_KEY="+nrak, nrak)},
			[]string{"NRAK-" + up(10), "NRAK-" + t.of(lowerA, 27)},
		},
		"dynatrace-api-token": {
			[]example{p("DT_API_TOKEN="+dt, dt)},
			[]string{"dt0c01." + up(24), "dt0c01." + up(10) + "." + up(64)},
		},
		"postman-api-key": {
			[]example{p("POSTMAN_API_KEY="+pmak, pmak)},
			[]string{"PMAK-" + hex(24), "PMAK-" + hex(10) + "-" + hex(34)},
		},
		"planetscale-token": {
			[]example{p("PLANETSCALE_TOKEN="+pscale, pscale)},
			[]string{"pscale_tkn_" + an(10), "pscale_xyz_" + an(43)},
		},
		"prefect-api-key": {
			[]example{p("PREFECT_API_KEY="+pnu, pnu)},
			[]string{"pnu_" + an(10)},
		},
		"linear-api-key": {
			[]example{p("LINEAR_API_KEY="+lin, lin)},
			[]string{"lin_api_" + an(10)},
		},
		"notion-integration-token": {
			[]example{p("NOTION_TOKEN="+ntn, ntn)},
			[]string{"ntn_" + an(46), "ntn_" + t.of(digits, 11)},
		},
		"openai-api-key": {
			[]example{p("OPENAI_API_KEY="+openai, openai), p(`api_key="`+openaiLegacy+`"`, openaiLegacy)},
			[]string{"sk-proj-" + url(100), "T3BlbkFJ"},
		},
		"anthropic-api-key": {
			[]example{p("ANTHROPIC_API_KEY="+anthropic, anthropic)},
			[]string{"sk-ant-api03-" + url(40), "sk-ant-api03-" + url(93) + "BB"},
		},
		"huggingface-token": {
			[]example{p("HF_TOKEN="+hf, hf)},
			[]string{"hf_" + t.of(lowerA, 10), "hf_" + strings.Repeat("a", 34)},
		},
		"slack-bot-token": {
			[]example{p("SLACK_BOT_TOKEN="+xoxb, xoxb)},
			[]string{"xoxb-" + t.of(digits, 12), "xoxb-abc-def-ghi"},
		},
		"slack-user-token": {
			[]example{p("SLACK_TOKEN="+xoxp, xoxp)},
			[]string{"xoxp-" + t.of(digits, 12) + "-" + hex(32)},
		},
		"slack-app-token": {
			[]example{p("SLACK_APP_TOKEN="+xapp, xapp)},
			[]string{"xapp-1-" + up(11)},
		},
		"slack-webhook-url": {
			[]example{p("url: https://hooks.slack.com/services/"+slackHook, slackHook)},
			[]string{"https://hooks.slack.com/services/T000/B000/XXXX", "https://hooks.slack.com/"},
		},
		"discord-webhook-url": {
			[]example{p("https://discord.com/api/webhooks/"+t.of(digits, 18)+"/"+discordHook, discordHook)},
			[]string{"https://discord.com/api/webhooks/123/abc", "https://example.com/api/webhooks/" + t.of(digits, 18) + "/" + url(68)},
		},
		"teams-webhook-url": {
			[]example{p("https://contoso.webhook.office.com/webhookb2/"+uuid()+"@"+uuid()+"/IncomingWebhook/"+teamsSecret+"/"+uuid(), teamsSecret)},
			[]string{"https://contoso.webhook.office.com/webhookb2/" + uuid()},
		},
		"google-chat-webhook-url": {
			[]example{p("https://chat.googleapis.com/v1/spaces/"+url(11)+"/messages?key="+url(39)+"&token="+chatToken, chatToken)},
			[]string{"https://chat.googleapis.com/v1/spaces/" + url(11) + "/messages"},
		},
		"telegram-bot-token": {
			[]example{p("TELEGRAM_BOT_TOKEN="+telegram, telegram)},
			[]string{t.of(digits, 10) + ":AA" + url(10), t.of(digits, 5) + ":AA" + url(33)},
		},
		"twilio-api-key": {
			[]example{p("TWILIO_API_KEY="+twilio, twilio), p(`twilioKey: "`+twilio+`"`, twilio)},
			[]string{twilio, "TWILIO_API_KEY=SK" + hex(10)},
		},
		"sendgrid-api-key": {
			[]example{p("SENDGRID_API_KEY="+sendgrid, sendgrid)},
			[]string{"SG." + url(22), "SG." + url(10) + "." + url(43)},
		},
		"mailgun-api-key": {
			[]example{p("MAILGUN_API_KEY="+mailgun, mailgun)},
			[]string{"key-" + hex(20), "key-" + strings.Repeat("0", 32), "primary-key-value"},
		},
		"mailchimp-api-key": {
			[]example{p("MAILCHIMP_KEY="+mailchimp, mailchimp)},
			[]string{hex(32) + "-eu1", strings.Repeat("0", 32) + "-us1"},
		},
		"stripe-secret-key": {
			[]example{p("STRIPE_SECRET_KEY="+stripe, stripe)},
			[]string{"sk_live_" + an(10), "pk_live_" + an(40)},
		},
		"stripe-webhook-secret": {
			[]example{p("STRIPE_WEBHOOK_SECRET="+whsec, whsec)},
			[]string{"whsec_" + an(10)},
		},
		"square-access-token": {
			[]example{p("SQUARE_ACCESS_TOKEN="+square, square)},
			[]string{"EAAA" + url(10), "EAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		},
		"square-oauth-secret": {
			[]example{p("SQUARE_SECRET="+sq0csp, sq0csp)},
			[]string{"sq0csp-" + url(20)},
		},
		"paypal-braintree-access-token": {
			[]example{p("BRAINTREE_TOKEN="+braintree, braintree)},
			[]string{"access_token$sandbox$" + t.of(lowerA+digits, 16) + "$" + hex(32)},
		},
		"shopify-token": {
			[]example{p("SHOPIFY_TOKEN="+shpat, shpat)},
			[]string{"shpat_" + hex(20), "shpxx_" + hex(32)},
		},
		"razorpay-key": {
			[]example{p("RAZORPAY_KEY_ID="+rzp, rzp)},
			[]string{"rzp_live_" + an(5), "rzp_prod_" + an(14)},
		},
		"flutterwave-secret-key": {
			[]example{p("FLW_SECRET_KEY="+flw, flw)},
			[]string{"FLWSECK_TEST-" + hex(20) + "-X"},
		},
		"plaid-access-token": {
			[]example{p("PLAID_ACCESS_TOKEN="+plaid, plaid)},
			[]string{"access-sandbox-" + hex(8), "access-staging-" + uuid()},
		},
		"shippo-api-token": {
			[]example{p("SHIPPO_TOKEN="+shippo, shippo)},
			[]string{"shippo_live_" + hex(20), "shippo_prod_" + hex(40)},
		},
		"facebook-access-token": {
			[]example{p("FB_TOKEN="+fb, fb)},
			[]string{"EAACEdEose0cBA" + an(5)},
		},
		"twitter-bearer-token": {
			[]example{p("TWITTER_BEARER="+twitter, twitter)},
			[]string{strings.Repeat("A", 22) + an(10), strings.Repeat("A", 100)},
		},
		"mapbox-secret-token": {
			[]example{p("MAPBOX_TOKEN="+mapbox, mapbox)},
			[]string{"sk.eyJ" + url(10) + "." + url(22), "pk.eyJ" + url(80) + "." + url(22)},
		},
		"firebase-cloud-messaging-key": {
			[]example{p("FCM_SERVER_KEY="+fcm, fcm)},
			[]string{"AAAA" + url(7) + ":APA91b" + url(20)},
		},
		"onepassword-service-account-token": {
			[]example{p("OP_SERVICE_ACCOUNT_TOKEN="+ops, ops)},
			[]string{"ops_eyJ" + an(50), "ops_eyJ" + strings.Repeat("A", 300)},
		},
		"private-key": {
			[]example{
				p("-----BEGIN RSA PRIVATE KEY-----\n"+pemBody+"-----END RSA PRIVATE KEY-----\n", ""),
				p(`const key = "-----BEGIN PRIVATE KEY-----\n`+strings.ReplaceAll(pemBody, "\n", `\n`)+`-----END PRIVATE KEY-----"`, ""),
			},
			[]string{"-----BEGIN PUBLIC KEY-----\n" + pemBody + "-----END PUBLIC KEY-----", "-----BEGIN RSA PRIVATE KEY-----\nshort\n-----END RSA PRIVATE KEY-----"},
		},
		"putty-private-key": {
			[]example{p("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n", "")},
			[]string{"PuTTY-User-Key-File-9: ssh-rsa", "putty user key file"},
		},
		"age-secret-key": {
			[]example{p("# created: 2026\n"+age+"\n", age)},
			[]string{"AGE-SECRET-KEY-1" + t.of("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 20), "AGE-PUBLIC-KEY-1" + t.of("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)},
		},
		"jwt": {
			[]example{p("Authorization: Bearer "+jwt, jwt)},
			[]string{"eyJhbGciOiJIUzI1NiJ9", "eyJ" + url(30) + ".eyJ" + url(5)},
		},
		"pkcs12-keystore-file": {}, // path-only: see TestPathOnlyRules
		"database-url-password": {
			[]example{
				p("DATABASE_URL=postgres://app:"+dbPass+"@db.internal:5432/app", dbPass),
				p(`uri = "mongodb+srv://root:`+dbPass+`@cluster0.example.net/test"`, dbPass),
			},
			[]string{"postgres://app@db.internal:5432/app", "postgres://app:password@localhost/app", "postgres://user:${DB_PASSWORD}@host/db", "mysql://root:changeme@127.0.0.1/x"},
		},
		"jdbc-url-password": {
			[]example{p("url=jdbc:sqlserver://db:1433;databaseName=app;user=sa;password="+jdbcPass, jdbcPass)},
			[]string{"jdbc:mysql://db:3306/app?user=root", "jdbc:sqlserver://db;password=changeme"},
		},
		"url-basic-auth-password": {
			[]example{p("proxy = https://deploy:"+urlPass+"@proxy.example.com:3128", urlPass)},
			[]string{"https://user:password@example.com", "https://example.com:443/path@v1", "http://user:aaaa@host"},
		},
		"generic-api-key": {
			[]example{
				p(`api_key = "`+generic+`"`, generic),
				p(`const clientSecret = "`+generic+`";`, generic),
				p(`password: `+generic+"\n", generic),
				p(`"auth_key" => '`+generic+`',`, generic),
			},
			[]string{
				`api_key = "aaaaaaaaaaaaaaaaaaaaaaaa"`,
				`token := tokenizer.NextToken()`,
				`secret = config.Values.Secrets.Primary`,
				`password = os.Getenv("DB_PASSWORD_FOR_THE_APP")`,
				`api_key = "` + an(10) + `"`,
				`apiKey = "${API_KEY_FROM_ENVIRONMENT}"`,
				`secret_path = /var/run/secrets/kubernetes.io`,
			},
		},
	}
}

// TestBuiltinRulesMatchTheirExamples checks every built-in rule against
// its positive examples (found, with the right secret) and negative ones
// (not found), and that no built-in rule lacks examples.
func TestBuiltinRulesMatchTheirExamples(t *testing.T) {
	d := defaultDetector(t)
	s := d.NewScratch()
	examples := builtinExamples()
	for _, info := range d.Rules() {
		ex, ok := examples[info.ID]
		if !ok {
			t.Errorf("rule %s has no examples", info.ID)
			continue
		}
		if info.PathOnly {
			continue // see TestPathOnlyRules
		}
		if len(ex.positive) == 0 || len(ex.negative) == 0 {
			t.Errorf("rule %s needs positive and negative examples", info.ID)
		}
		t.Run(info.ID, func(t *testing.T) {
			for _, e := range ex.positive {
				var got []Match
				for _, m := range scanAll(d, s, "config/app.env", []byte(e.text)) {
					if m.RuleID == info.ID {
						got = append(got, m)
					}
				}
				if len(got) != 1 {
					t.Errorf("positive %q: %d findings of %s, want 1", e.text, len(got), info.ID)
					continue
				}
				if e.secret != "" && got[0].Secret != e.secret {
					t.Errorf("positive %q: secret %q, want %q", e.text, got[0].Secret, e.secret)
				}
			}
			for _, text := range ex.negative {
				for _, m := range scanAll(d, s, "config/app.env", []byte(text)) {
					if m.RuleID == info.ID {
						t.Errorf("negative %q: found %s secret %q", text, info.ID, m.Secret)
					}
				}
			}
		})
	}
	for id := range examples {
		if _, ok := d.byID[id]; !ok {
			t.Errorf("examples for unknown rule %s", id)
		}
	}
}

// TestBuiltinRulesAreWindowed checks the property the built-in rules are
// written for: every match contains a keyword, so every rule runs in
// windows around keyword hits and never over a whole buffer.
func TestBuiltinRulesAreWindowed(t *testing.T) {
	d := defaultDetector(t)
	if n := len(d.rules); n < 60 {
		t.Errorf("%d built-in rules, want at least 60", n)
	}
	for _, r := range d.rules {
		if r.PathOnly {
			continue
		}
		if len(r.gate) == 0 {
			t.Errorf("%s: no keywords", r.ID)
		}
		if r.anchors == nil || len(r.anchors) != len(r.gate) {
			t.Errorf("%s: keywords are not proved to occur in every match", r.ID)
		}
	}
}
