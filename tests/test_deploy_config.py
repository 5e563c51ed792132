"""The shipped deployment files, read as the tools read them: deploy/nginx.conf's directives,
docker-compose.yml's interpolation, and the settings each BEHIND_TLS value gives.
(tests/integration/test_edge_proxy.py runs the same nginx.conf for real.)"""

import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
COMPOSE = ROOT / "docker-compose.yml"
ENV = {"SECRET_KEY": "x", "POSTGRES_PASSWORD": "p"}
"""What compose requires of the environment (.env)."""


def nginx_directives(text: str) -> list[list[str]]:
    """Every simple directive (`name arg ...;`) as its words, comments dropped."""
    code = re.sub(r"#[^\n]*", "", text)
    return [statement.split() for statement in re.findall(r"([^;{}]+);", code)]


def proxy_headers() -> dict[str, str]:
    return {
        words[1]: " ".join(words[2:])
        for words in nginx_directives(NGINX_CONF.read_text())
        if words[0] == "proxy_set_header"
    }


def test_the_proxy_sends_the_peers_address_not_the_clients_claim():
    """Daphne's --proxy-headers believes the first X-Forwarded-For address; appending to the
    client's header ($proxy_add_x_forwarded_for) let any client pick its address."""
    assert proxy_headers()["X-Forwarded-For"] == "$remote_addr"
    assert "$proxy_add_x_forwarded_for" not in re.sub(r"#[^\n]*", "", NGINX_CONF.read_text())


def test_the_proxy_keeps_the_port_in_host():
    assert proxy_headers()["Host"] == "$http_host"


def test_the_proxy_passes_a_balancers_scheme_only_behind_tls():
    text = re.sub(r"#[^\n]*", "", NGINX_CONF.read_text())
    assert proxy_headers()["X-Forwarded-Proto"] == "$forwarded_proto"
    mapping = re.search(
        r'map "\$\{BEHIND_TLS\}:\$http_x_forwarded_proto" \$forwarded_proto \{(.*?)\}', text, re.S
    )
    assert mapping, "the X-Forwarded-Proto map is missing"
    assert re.search(r"default\s+\$scheme;", mapping.group(1))


class MissingVariable(Exception):
    """A `${VAR:?message}` whose variable is unset or empty: compose refuses to start."""


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's `${VAR}`, `${VAR:-default}` (defaults may nest), `${VAR:?message}` and `$$`,
    the forms the file uses."""
    out, i = [], 0
    while i < len(value):
        if value.startswith("$$", i):
            out.append("$")
            i += 2
        elif value.startswith("${", i):
            depth, j = 1, i + 2
            while depth:
                if value.startswith("${", j):
                    depth, j = depth + 1, j + 2
                else:
                    depth, j = depth - (value[j] == "}"), j + 1
            expression = value[i + 2 : j - 1]
            name, required, message = expression.partition(":?")
            if required:
                if not env.get(name):
                    raise MissingVariable(f"{name}: {message}")
                out.append(env[name])
            else:
                name, _, default = expression.partition(":-")
                out.append(env.get(name) or interpolate(default, env))
            i = j
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def compose_environment(service: str, env: dict[str, str]) -> dict[str, str]:
    """A service's environment as `docker compose config` gives it (the binary when it can run,
    else the same interpolation done here on the parsed YAML)."""
    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    ):
        done = subprocess.run(
            [docker, "compose", "-f", str(COMPOSE), "config", "--format", "json"],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(done.stdout)["services"][service]["environment"]
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    return {
        name: interpolate(str(value), env)
        for name, value in services[service].get("environment", {}).items()
    }


def test_compose_trusts_the_origins_of_the_published_port():
    web = compose_environment("web1", {**ENV, "PORT": "9000"})
    assert web["CSRF_TRUSTED_ORIGINS"].split(",") == [
        "http://localhost:9000",
        "http://127.0.0.1:9000",
    ]
    default = compose_environment("web1", ENV)
    assert "http://localhost:8080" in default["CSRF_TRUSTED_ORIGINS"].split(",")


def test_compose_says_whether_tls_is_in_front_to_the_app_and_the_proxy_alike():
    for env, expected in (({}, "false"), ({"BEHIND_TLS": "true"}, "true")):
        env = {**ENV, **env}
        assert compose_environment("web1", env)["BEHIND_TLS"] == expected
        assert compose_environment("proxy", env)["BEHIND_TLS"] == expected
    proxy = yaml.safe_load(COMPOSE.read_text())["services"]["proxy"]
    assert "./deploy/nginx.conf:/etc/nginx/templates/default.conf.template:ro" in proxy["volumes"]


def test_compose_health_checks_ask_a_host_that_is_always_allowed():
    web = compose_environment("web1", {**ENV, "ALLOWED_HOSTS": "mines.example.org"})
    assert web["ALLOWED_HOSTS"].split(",") == ["mines.example.org", "127.0.0.1"]


def production_settings(**env: str) -> dict[str, object]:
    """The security settings config/settings.py gives for this environment."""
    names = [
        "BEHIND_TLS",
        "SECURE_SSL_REDIRECT",
        "SECURE_REDIRECT_EXEMPT",
        "SESSION_COOKIE_SECURE",
        "CSRF_COOKIE_SECURE",
        "SECURE_HSTS_SECONDS",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS",
        "SECURE_HSTS_PRELOAD",
    ]
    script = (
        "import json, django; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n) for n in {names!r}}}))"
    )
    full = {k: v for k, v in os.environ.items() if k not in ("BEHIND_TLS", "SECURE_SSL_REDIRECT")}
    full.update(DJANGO_SETTINGS_MODULE="config.settings", DEBUG="false", SECRET_KEY="p" * 50, **env)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=full, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_production_defaults_to_tls_in_front_with_hsts_for_this_host_only():
    settings = production_settings()
    assert settings["BEHIND_TLS"] and settings["SECURE_SSL_REDIRECT"]
    assert settings["SESSION_COOKIE_SECURE"] and settings["CSRF_COOKIE_SECURE"]
    assert settings["SECURE_HSTS_SECONDS"] == 31536000
    assert not settings["SECURE_HSTS_INCLUDE_SUBDOMAINS"] and not settings["SECURE_HSTS_PRELOAD"]
    assert any(re.match(pattern, "healthz") for pattern in settings["SECURE_REDIRECT_EXEMPT"])


def test_hsts_subdomains_and_preload_are_opt_in():
    settings = production_settings(
        SECURE_HSTS_INCLUDE_SUBDOMAINS="true", SECURE_HSTS_PRELOAD="true"
    )
    assert settings["SECURE_HSTS_INCLUDE_SUBDOMAINS"] and settings["SECURE_HSTS_PRELOAD"]


def test_plain_http_turns_off_everything_that_needs_https():
    settings = production_settings(BEHIND_TLS="false")
    assert not settings["SECURE_SSL_REDIRECT"]
    assert not settings["SESSION_COOKIE_SECURE"] and not settings["CSRF_COOKIE_SECURE"]
    assert settings["SECURE_HSTS_SECONDS"] == 0


def test_the_old_redirect_switch_stops_the_start_rather_than_being_ignored():
    script = "import django; django.setup()"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECURE_SSL_REDIRECT": "false",
    }
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode != 0 and "set BEHIND_TLS instead" in done.stderr


def test_daphne_believes_no_forwarded_header_and_compose_trusts_only_its_proxy():
    """Daphne's --proxy-headers believes X-Forwarded-For from anyone: a Daphne exposed without
    nginx let every client pick the address its limits count. The app believes it from
    TRUSTED_PROXIES alone (config/asgi.py), which compose sets to the proxy's fixed address."""
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    command = next(line for line in lines if line.startswith("CMD "))
    assert "--proxy-headers" not in json.loads(command.removeprefix("CMD "))
    compose = yaml.safe_load(COMPOSE.read_text())
    services = compose["services"]
    assert "--proxy-headers" not in services["web1"]["command"]
    trusted = compose_environment("web1", ENV)["TRUSTED_PROXIES"]
    proxy_address = services["proxy"]["networks"]["default"]["ipv4_address"]
    subnet = compose["networks"]["default"]["ipam"]["config"][0]["subnet"]
    assert trusted == proxy_address
    assert ipaddress.ip_address(proxy_address) in ipaddress.ip_network(subnet)


def test_a_trusted_proxy_that_is_no_address_stops_the_start():
    script = "import django; django.setup()"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "TRUSTED_PROXIES": "proxy"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode != 0 and "TRUSTED_PROXIES: 'proxy' is no IP address" in done.stderr


def test_nginx_takes_the_bodies_the_app_takes():
    """The app refuses past Django's DATA_UPLOAD_MAX_MEMORY_SIZE with a JSON 413; nginx refused
    past 64 KiB with an HTML one. Its own errors under /api/ are JSON (the integration test
    test_nginx_answers_its_own_errors_under_the_api_in_json runs them)."""
    from django.conf import global_settings

    sizes = [
        w[1] for w in nginx_directives(NGINX_CONF.read_text()) if w[0] == "client_max_body_size"
    ]
    assert sizes == ["2560k"] and global_settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 2560 * 1024


def test_compose_needs_a_database_password():
    for service in ("db", "web1"):
        with pytest.raises(MissingVariable, match="POSTGRES_PASSWORD"):
            compose_environment(service, {"SECRET_KEY": "x"})
    db = compose_environment("db", ENV)
    assert (
        db["POSTGRES_PASSWORD"] == "p"
        and ":p@db:" in compose_environment("web1", ENV)["DATABASE_URL"]
    )


def test_the_proxy_waits_for_healthy_web_processes_and_has_a_health_check():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    proxy = services["proxy"]
    assert {name: dep["condition"] for name, dep in proxy["depends_on"].items()} == {
        "web1": "service_healthy",
        "web2": "service_healthy",
    }
    assert "/healthz" in " ".join(proxy["healthcheck"]["test"])
    assert all("healthcheck" in services[name] for name in ("web1", "web2", "db", "redis"))


def test_every_service_keeps_a_bounded_log():
    for name, service in yaml.safe_load(COMPOSE.read_text())["services"].items():
        logging = service.get("logging", {})
        assert logging.get("driver") == "json-file", name
        assert logging["options"]["max-size"] and logging["options"]["max-file"], name


def test_every_image_is_pinned_by_digest_or_says_why_not():
    """No digest could be read where the file was written (no Docker engine): an image by tag
    alone carries a comment saying how to pin it."""
    lines = COMPOSE.read_text().splitlines()
    for number, line in enumerate(lines):
        image = re.match(r"\s+image: (\S+)", line)
        if image is None or image[1] == "minesweeper-live":
            continue
        comment = lines[number - 1].strip() + lines[number - 2].strip()
        assert "@sha256:" in image[1] or "imagetools inspect " + image[1] in comment, line


def test_the_access_log_format_has_no_query_string():
    """Bots' websockets carry their token as ?token=; `$request` (the default format's) has it."""
    text = re.sub(r"#[^\n]*", "", NGINX_CONF.read_text())
    logs = [words for words in nginx_directives(text) if words[0] == "access_log"]
    assert [words[2] for words in logs] == ["no_query"]
    format_ = re.search(r"log_format\s+no_query\s+([^;]+);", text)
    assert format_ and "$uri" in format_[1]
    assert not re.search(r"\$(request|request_uri|args|query_string|arg_\w+)\b", format_[1])
