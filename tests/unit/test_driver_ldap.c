// SPDX-License-Identifier: MIT
/*
 * --proto ldap, what the driver sends: the filter encoder and the SearchRequest against the bytes
 * ldapsearch (libldap 2.5) sent for the same search, the bind, bad filters, the short template
 * form, the options and the URL (test_driver_ldap_frame.c: what it reads back).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "ll_test.h"
#include "driver_parse_line.h"
#include "apps.h"
#include "ldap/ldap_config.h"
#include "ldap/ldap_filter.h"
#include "ldap/ldap_request.h"
#include "config/parse.h"
#include "config/template.h"
#include "framing/frame.h"
#include "ldap/ldap_frame.h"
#include "framing/response.h"
#include "ldap/ldap_codes.h"

/* drv_config_parse() of an argv (NULL-terminated after the program name) */
/*
 * ldapsearch -x -b dc=example,dc=com -s one FILTER cn sn: its SearchRequest (messageID 2), as
 * captured on the wire between it and slapd 2.5.13.
 */
static const struct {
	const char *filter, *hex;
} ldapsearch[] = {
		{"(uid=user42)",
		 "3040020102633b041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a3"
		 "0d0403756964040675736572343230080402636e0402736e"},
		{"(objectClass=*)",
		 "303e0201026339041164633d6578616d706c652c64633d636f6d0a01010a010002010002010001010087"
		 "0b6f626a656374436c61737330080402636e0402736e"},
		{"(cn=Us*er*4*2)",
		 "30470201026342041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a4"
		 "140402636e300e800255738102657281013482013230080402636e0402736e"},
		{"(&(uid=a)(|(cn=b)(!(sn=c))))",
		 "3053020102634e041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a0"
		 "20a3080403756964040161a114a3070402636e040162a209a3070402736e04016330080402636e040273"
		 "6e"},
		{"(sn>=5)",
		 "303a0201026335041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a5"
		 "070402736e04013530080402636e0402736e"},
		{"(sn<=5)",
		 "303a0201026335041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a6"
		 "070402736e04013530080402636e0402736e"},
		{"(cn~=foo)",
		 "303c0201026337041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a8"
		 "090402636e0403666f6f30080402636e0402736e"},
		{"(cn=a\\2a\\28\\29\\5c)",
		 "303e0201026339041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a3"
		 "0b0402636e0405612a28295c30080402636e0402736e"},
		{"(cn:caseExactMatch:=x)",
		 "304a0201026345041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a9"
		 "17810e6361736545786163744d617463688202636e83017830080402636e0402736e"},
		{"(:dn:2.5.13.5:=y)",
		 "3043020102633e041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a9"
		 "108108322e352e31332e358301798401ff30080402636e0402736e"},
		{"(cn:dn:=z)",
		 "303d0201026338041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a9"
		 "0a8202636e83017a8401ff30080402636e0402736e"},
		{"(cn=*x)",
		 "303c0201026337041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a4"
		 "090402636e300382017830080402636e0402736e"},
		{"(cn=x*)",
		 "303c0201026337041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a4"
		 "090402636e300380017830080402636e0402736e"},
		{"(&)",
		 "3033020102632e041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a0"
		 "0030080402636e0402736e"},
		{"(|)",
		 "3033020102632e041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a1"
		 "0030080402636e0402736e"},
		{"(cn=)",
		 "30390201026334041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a3"
		 "060402636e040030080402636e0402736e"},
		{"(cn=\xc3\xa9)",
		 "303b0201026336041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a3"
		 "080402636e0402c3a930080402636e0402736e"},
		{"uid=bare",
		 "303e0201026339041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a3"
		 "0b040375696404046261726530080402636e0402736e"},
		{"(cn=*a*b*)",
		 "303f020102633a041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a4"
		 "0c0402636e300681016181016230080402636e0402736e"},
		{"(cn;lang-en=x)",
		 "3042020102633d041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a3"
		 "0f040a636e3b6c616e672d656e04017830080402636e0402736e"},
		{"(2.5.4.3=x)",
		 "303f020102633a041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a3"
		 "0c0407322e352e342e3304017830080402636e0402736e"},
		{"(!(cn=a))",
		 "303c0201026337041164633d6578616d706c652c64633d636f6d0a01010a0100020100020100010100a2"
		 "09a3070402636e04016130080402636e0402736e"},
};

static void test_search_bytes(void **state)
{
	uint8_t want[256];
	char out[512], err[256];
	struct drv_ldap_req q;
	struct drv_config cfg;
	size_t i, n;
	long got;

	(void)state;
	for (i = 0; i < sizeof(ldapsearch) / sizeof(ldapsearch[0]); i++) {
		const char *args[] = {"tcp://127.0.0.1:389", "--proto", "ldap", "--base",
				      "dc=example,dc=com", "--scope", "one", "--attrs", "cn,sn",
				      "--filter", ldapsearch[i].filter, "-n", "1", NULL};

		assert_int_equal(parse_words(&cfg, args, err, sizeof(err)), 0);
		assert_int_equal(cfg.resp_rule, DRV_RESP_LDAP);
		assert_int_equal(drv_ldap_req_init(&q, cfg.ldap, 0, 0, 1), 0);
		got = drv_ldap_search(&q, 2, out, sizeof(out), err, sizeof(err));
		n = ll_unhex(ldapsearch[i].hex, want);
		if (got != (long)n || memcmp(out, want, n))
			fail_msg("%s: %ld bytes, ldapsearch sent %zu (or they differ)",
				 ldapsearch[i].filter, got, n);
		assert_true(cfg.ldap->max_len >= n);
		drv_ldap_req_fini(&q);
		drv_config_fini(&cfg);
	}
}

static void test_bind_bytes(void **state)
{
	struct drv_ldap_cfg lc = {0};
	uint8_t want[128];
	char out[128];
	size_t n;

	(void)state;
	/* ldapsearch -x: anonymous, messageID 1 */
	n = ll_unhex("300c020101600702010304008000", want);
	assert_int_equal(drv_ldap_bind(&lc, 1, out, sizeof(out)), (long)n);
	assert_memory_equal(out, want, n);
	/* ldapsearch -x -D cn=admin,dc=example,dc=com -w secret */
	lc.bind_dn = "cn=admin,dc=example,dc=com";
	lc.password = (char *)"secret";
	lc.password_len = 6;
	n = ll_unhex("302c0201016027020103041a636e3d61646d696e2c64633d6578616d706c652c64633d636f6d"
		  "8006736563726574", want);
	assert_int_equal(drv_ldap_bind(&lc, 1, out, sizeof(out)), (long)n);
	assert_memory_equal(out, want, n);
	assert_int_equal(drv_ldap_bind(&lc, 1, out, 10), -ENOBUFS);
	/* message ids: 1 .. 2^31-1, then 1 again */
	assert_int_equal(drv_ldap_next_id(0), 1);
	assert_int_equal(drv_ldap_next_id(41), 42);
	assert_int_equal(drv_ldap_next_id(DRV_LDAP_MSGID_MAX), 1);
}

static void test_bad_filters(void **state)
{
	static const struct {
		const char *filter, *why;
	} bad[] = {
		{"(cn=a", "no closing ')'"},
		{"(cn=a))", "after the filter"},
		{"(cn=a)(cn=b)", "after the filter"},
		{"((cn=a))", "'(' inside an item"},
		{"(=a)", "attribute name is missing"},
		{"(c n=a)", "not a character of an attribute name"},
		{"(cn=a\\4)", "escape of two hex digits"},
		{"(cn=a\\zz)", "escape of two hex digits"},
		{"(cn>=a*)", "'*' here"},
		{"(cn~=*)", "'*' here"},
		{"(cn=a**b)", "'**'"},
		{"(&(cn=a)", "no closing ')'"},
		{"(!)", "expected '('"},
		{"(!(a=b)(c=d))", "expected ')'"},
		{"(cn=a(b)", "'(' inside an item"},
		{"(cn)", "expected attr=value"},
		{"(:=x)", "needs an attribute or a matching rule"},
		{"(cn:dn:r1:dn:=x)", "expected [attr][:dn][:rule]:=value"},
		{"(cn:r1:r2:=x)", "expected [attr][:dn][:rule]:=value"},
		{"", "empty filter"},
		{"   ", "empty filter"},
	};
	char err[256], deep[400];
	BerElement *ber;
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ber = ber_alloc_t(LBER_USE_DER);
		err[0] = '\0';
		if (drv_ldap_put_filter(ber, bad[i].filter, strlen(bad[i].filter), err,
					sizeof(err)) != -EINVAL || !strstr(err, bad[i].why))
			fail_msg("%s: '%s', expected '%s'", bad[i].filter, err, bad[i].why);
		assert_non_null(strstr(err, "filter byte "));
		ber_free(ber, 1);
	}
	/* 64 levels of not: taken; 65: refused, never a deep recursion */
	for (k = 64; k <= 65; k++) {
		char *p = deep;
		int j;

		for (j = 0; j < k; j++)
			p += sprintf(p, "(!");
		p += sprintf(p, "(a=b)");
		for (j = 0; j < k; j++)
			*p++ = ')';
		*p = '\0';
		ber = ber_alloc_t(LBER_USE_DER);
		assert_int_equal(drv_ldap_put_filter(ber, deep, strlen(deep), err, sizeof(err)),
				 k == 64 ? 0 : -EINVAL);
		ber_free(ber, 1);
	}
}

static void test_short_template(void **state)
{
	struct drv_tpl t;
	struct drv_tpl_ctx c = {0};
	char err[128], out[64];
	size_t n;
	int i, seen_short = 0;

	(void)state;
	assert_int_equal(drv_tpl_parse(&t, "(uid=user{{rand:0-9999}})", 25, err, sizeof(err)),
			 0);
	for (i = 0; i < 1000; i++) {
		n = drv_tpl_expand_short(&t, &c, out);
		out[n] = '\0';
		assert_true(n >= 11 && n <= 14);
		assert_true(out[9] != '0' || n == 11); /* no zero padding: "user0" only */
		assert_int_equal(out[n - 1], ')');
		seen_short += n < 14;
	}
	assert_true(seen_short > 0);
	drv_tpl_free(&t);
	assert_int_equal(drv_tpl_parse(&t, "{{seq}}-{{rand:7-7}}", 20, err, sizeof(err)), 0);
	c = (struct drv_tpl_ctx){0};
	n = drv_tpl_expand_short(&t, &c, out);
	assert_int_equal(n, 3);
	assert_memory_equal(out, "0-7", 3);
	drv_tpl_free(&t);
}

static void test_options(void **state)
{
	static const struct argv_case cases[] = {
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "-n", "1", NULL}, NULL},
		{{"ldap://127.0.0.1/dc=example,dc=com", "-n", "1", NULL}, NULL},
		{{"tcp://127.0.0.1:389", "--base", "dc=x", "-n", "1", NULL},
		 "go with --proto ldap"},
		{{"udp://127.0.0.1:389", "--proto", "ldap", "-n", "1", NULL}, "goes with tcp://"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--scope", "all", "-n", "1", NULL},
		 "expected base, one or sub"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--filter", "(cn=a", "-n", "1", NULL},
		 "no closing ')'"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--filter", "(cn={{rand:9}})", "-n",
		  "1", NULL}, "expected {{seq}}"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--attrs", "cn,,sn", "-n", "1", NULL},
		 "separated by commas"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--attrs", "", "-n", "1", NULL},
		 "--attrs '': no attribute named"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--attrs", "cn,", "-n", "1", NULL},
		 "a name after each comma"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--attrs", "1.1", "-n", "1", NULL}, NULL},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--bind-dn", "", "--bind-password-file",
		  "/etc/hostname", "-n", "1", NULL}, "--bind-dn: an empty DN binds no one"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--bind-dn", "cn=a", "-n", "1", NULL},
		 "never taken on the command line"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--bind-dn", "cn=a",
		  "--bind-password-file", "/nonexistent/pw", "-n", "1", NULL}, "/nonexistent/pw"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--bind-password-file", "/etc/hostname",
		  "-n", "1", NULL}, "goes with --bind-dn"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "-P", "4", "-n", "1", NULL},
		 "out of order"},
		{{"tcp://127.0.0.1:389", "--proto", "ldap", "--payload", "/etc/hostname", "-n", "1",
		  NULL}, "drop --payload"},
		{{"tcp://127.0.0.1:389", "--proto", "ftp", "-n", "1", NULL},
		 "memcache-udp or ldap"},
		{{"ldap://127.0.0.1/dc=x", "--base", "dc=y", "-n", "1", NULL}, "give it once"},
		{{"ldap://127.0.0.1/dc=x?cn?all", "-n", "1", NULL}, "expected base, one or sub"},
		{{"ldap://127.0.0.1/dc=x%2", "-n", "1", NULL}, "%-escape"},
		{{"ldap:///dc=x", "-n", "1", NULL}, "expected ldap://HOST"},
		{{"ldap://127.0.0.1/dc=x????ext", "-n", "1", NULL}, "extensions"},
	};

	(void)state;
	check_argv_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void test_url(void **state)
{
	const char *args[] = {"ldap://127.0.0.1/ou=people,dc=example,dc=com?cn,sn?one?"
			      "(uid=user%2A)", "-n", "1", NULL};
	const char *v6[] = {"ldap://[::1]:3890", "-n", "1", NULL};
	struct drv_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(parse_words(&cfg, args, err, sizeof(err)), 0);
	assert_int_equal(cfg.url.scheme, LL_SCHEME_TCP);
	assert_int_equal(cfg.url.port, 389);
	assert_int_equal(cfg.resp_rule, DRV_RESP_LDAP);
	assert_string_equal(cfg.ldap->base.text, "ou=people,dc=example,dc=com");
	assert_string_equal(cfg.ldap->filter.text, "(uid=user*)");
	assert_int_equal(cfg.ldap->scope, DRV_LDAP_ONE);
	assert_string_equal(cfg.ldap->attrs[0], "cn");
	assert_string_equal(cfg.ldap->attrs[1], "sn");
	assert_null(cfg.ldap->attrs[2]);
	drv_config_fini(&cfg);
	assert_int_equal(parse_words(&cfg, v6, err, sizeof(err)), 0);
	assert_int_equal(cfg.url.port, 3890);
	assert_string_equal(cfg.ldap->filter.text, DRV_LDAP_DEFAULT_FILTER);
	assert_int_equal(cfg.ldap->scope, DRV_LDAP_SUB);
	drv_config_fini(&cfg);
}

/* --proto ldap's tables, as main() registers them (apps.h) */
static int register_apps(void **state)
{
	(void)state;
	drv_apps_register();
	return 0;
}

LL_TEST_MAIN_GROUP(register_apps, NULL, test_search_bytes, test_bind_bytes, test_bad_filters, test_short_template,
	     test_options, test_url)
