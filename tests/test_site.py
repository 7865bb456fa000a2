"""``arpad site`` (issue 13 item 7, docs/site.md): a static site of the published
lists, built from bundled Deloitte/FIDE 2011 games (a part of months 134 and 135, with
the contest's starting ratings) plus a players file that names some players, one of
them with a hostile name. The generated HTML is parsed with ``html.parser`` (every
link resolves inside the site, the list equals the frozen list, the card equals
``arpad card``); the tests marked ``browser`` open the site from ``file://`` in
Debian's headless Chromium (selenium, /usr/bin/chromedriver)."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import polars as pl
import pytest

import arpad
from arpad.pipeline import catalog
from arpad.pipeline.cli import main
from arpad.pipeline.fide_card import rating_card
from arpad.pipeline.lists import list_frame
from arpad.pipeline.site import player_file
from arpad.pipeline.store import Store
from arpad.pipeline.systems import get_system

HOSTILE = "<script>alert(1)</script>"
QUOTES = 'O\'Neil "& Co" <b>bold</b>'
FEDS = ("NOR", "GER", "FRA")
TITLES = ("GM", "IM", None)
GAMES_PER_MONTH = 700
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def subset(src: Path, dest: Path) -> tuple[Path, Path, list[str]]:
    """The first ``GAMES_PER_MONTH`` rows of months 134 and 135 and the starting
    ratings of their players: (games, ratings, ids by games played, most first)."""
    rows = list(csv.reader(open(src / "test_solution.csv")))
    kept, seen = [rows[0]], {"134": 0, "135": 0}
    for r in rows[1:]:
        if r[1] in seen and seen[r[1]] < GAMES_PER_MONTH:
            seen[r[1]] += 1
            kept.append(r)
    games = dest / "games.csv"
    with open(games, "w", newline="") as f:
        csv.writer(f).writerows(kept)
    count: dict[str, int] = {}
    for r in kept[1:]:
        for pid in (r[2], r[3]):
            count[pid] = count.get(pid, 0) + 1
    ratings = dest / "ratings.csv"
    with open(src / "initial_ratings.csv") as f, open(ratings, "w", newline="") as out:
        reader = csv.reader(f)
        writer = csv.writer(out)
        writer.writerow(next(reader))
        writer.writerows(r for r in reader if r[0] in count)
    return games, ratings, sorted(count, key=lambda p: (-count[p], int(p)))


@pytest.fixture(scope="module")
def built(tmp_path_factory, bundled_data):
    d = tmp_path_factory.mktemp("site")
    games, ratings, busiest = subset(bundled_data / "deloitte_fide_2011", d)
    root = d / "store"
    store = Store(root)
    common = ["--store", str(root), "--no-flow"]
    # exit 2: the contest's decoy rows (scores out of range) are quarantined
    assert main(["ingest", str(games), "--players", str(ratings), *common]) in (0, 2)
    assert main(["rate", "--system", "fide", *common]) == 0
    # the site's lists are the published ones: none yet -> exit 2
    assert main(["site", "--out", str(d / "early"), "--store", str(root)]) == 2
    # name 30 players with games on both FIDE lists, the busiest first
    on_134 = set(list_frame(store, "fide", "standard", 134)[0]["player_id"].to_list())
    on_135 = list_frame(store, "fide", "standard", 135)[0].filter(pl.col("games") > 0)
    playing = set(on_135["player_id"].to_list()) & on_134
    named = [p for p in busiest if p in playing][:30]
    assert len(named) == 30
    with open(d / "names.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["player_id", "name", "federation", "title", "sex"])
        for i, pid in enumerate(named):
            name = HOSTILE if i == 0 else QUOTES if i == 1 else f"Player {pid}"
            w.writerow([pid, name, FEDS[i % 3], TITLES[i % 3] or "", "F" if i % 2 else "M"])
    assert main(["ingest", str(d / "names.csv"), *common]) == 0
    # the names file sets sex, a starting-state value: the ratings are stale until rated
    # again, and a stale list is not published (docs/lists.md)
    assert main(["rate", "--system", "fide", *common]) == 0
    for period in (134, 135):
        assert main(["publish", "--store", str(root), "--period", str(period)]) == 0
    assert main(["rate", "--system", "glicko", *common]) == 0
    assert main(["publish", "--store", str(root), "--system", "glicko", "--period", "135"]) == 0
    out = d / "site"
    assert main(["site", "--out", str(out), "--store", str(root)]) == 0
    return {"store": store, "out": out, "hostile": named[0], "quotes": named[1], "named": named}


def published(store: Store, system: str, period: int) -> pl.DataFrame:
    folder = store.published_partition(system, "standard", period)
    return pl.read_parquet(folder / "list.parquet")


# -- parsing -----------------------------------------------------------------------------


class Page(HTMLParser):
    """Links, scripts, and the text of every table's rows of one page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.scripts: list[dict] = []
        self.tables: dict[str, list[list[str]]] = {}
        self.row_attrs: dict[str, list[dict]] = {}
        self.elements: list[str] = []
        self.title = ""
        self._table = None
        self._row = None
        self._cell = None
        self._in_title = False
        self._in_tbody = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append(tag)
        for key in ("href", "src"):
            if key in a:
                self.links.append(a[key])
        if tag == "script":
            self.scripts.append(a)
        elif tag == "title" and "svg" not in self.elements:
            self._in_title = True  # the page's title, not a chart point's
        elif tag == "table":
            self._table = a.get("id") or a.get("class") or "table"
            self.tables.setdefault(self._table, [])
            self.row_attrs.setdefault(self._table, [])
        elif tag == "tbody":
            self._in_tbody = True
        elif tag == "tr" and self._in_tbody:
            self._row = []
            self.row_attrs[self._table].append(a)
        elif tag == "td" and self._row is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        elif tag == "td" and self._row is not None:
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "tbody":
            self._in_tbody = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        if self._cell is not None:
            self._cell += data


def parse(path: Path) -> Page:
    p = Page()
    p.feed(path.read_text(encoding="utf-8"))
    p.close()
    return p


def html_files(out: Path) -> list[Path]:
    return sorted(out.rglob("*.html"))


def list_page(out: Path, system: str = "fide", period: int = 135) -> Path:
    return out / "lists" / f"{system}-standard-{period}.html"


# -- the generated HTML --------------------------------------------------------------------


def test_every_link_resolves_to_a_file_of_the_site(built):
    out = built["out"].resolve()
    pages = html_files(out)
    assert len(pages) > 100
    for path in pages:
        for link in parse(path).links:
            parts = urlsplit(link)
            assert not parts.scheme and not parts.netloc, f"{path}: external link {link}"
            assert not link.startswith("/"), f"{path}: absolute link {link}"
            target = (path.parent / unquote(parts.path)).resolve()
            assert out in target.parents, f"{path}: {link} leaves the site"
            assert target.is_file(), f"{path}: {link} does not resolve"


def test_index_links_every_published_list(built):
    index = parse(built["out"] / "index.html")
    lists = {link for link in index.links if link.startswith("lists/")}
    assert lists == {
        "lists/fide-standard-134.html",
        "lists/fide-standard-135.html",
        "lists/glicko-standard-135.html",
    }


@pytest.mark.parametrize(("system", "period"), [("fide", 134), ("fide", 135), ("glicko", 135)])
def test_list_page_equals_the_published_list(built, system, period):
    frozen = published(built["store"], system, period)
    page = parse(list_page(built["out"], system, period))
    rows = page.tables["list"]
    assert len(rows) == frozen.height
    own = tuple(c for c, _, _ in get_system(system).list_columns)  # glicko's rd (docs/site.md)
    columns = ("rank", "player_id", "name", "federation", "sex", "title", "w_title", "rating",
               *own, "games", "k", "birth_year", "flag")  # fmt: skip
    for cells, want in zip(rows, frozen.iter_rows(named=True)):
        expected = ["" if want[c] is None else str(want[c]) for c in columns]
        assert cells == expected
    # the filters' data attributes are the row's own federation and title
    for attrs, want in zip(page.row_attrs["list"], frozen.iter_rows(named=True)):
        assert attrs["data-id"] == want["player_id"].lower()
        assert attrs["data-fed"] == (want["federation"] or "-")
        assert attrs["data-title"] == (want["title"] or "-")
    # the store's current list is the same (no correction since publication)
    assert (
        frozen["rating"].to_list()
        == arpad.Store(built["store"].root).list(system, period=period)["rating"].to_list()
    )


def test_downloads_are_the_published_files(built):
    store, out = built["store"], built["out"]
    for system, period in (("fide", 134), ("fide", 135), ("glicko", 135)):
        folder = store.published_partition(system, "standard", period)
        manifest = json.loads((folder / "manifest.json").read_text())
        copied = out / "files" / system / "standard" / str(period)
        names = sorted(p.name for p in copied.iterdir())
        assert names == ["list.csv", "list.json", "list.txt", "list.xml"]
        for name in names:
            data = (copied / name).read_bytes()
            assert hashlib.sha256(data).hexdigest() == manifest["files"][name]
        page = parse(list_page(out, system, period))
        assert {f"../files/{system}/standard/{period}/{n}" for n in names} <= set(page.links)


def test_hostile_names_are_text(built):
    out = built["out"]
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    for path in html_files(out):
        text = path.read_text(encoding="utf-8")
        assert HOSTILE not in text, path
        assert "<b>bold</b>" not in text, path
        page = parse(path)
        # the only scripts are the site's own file, and no <b> came from a name
        assert all(s.get("src", "").endswith("site.js") for s in page.scripts), path
        assert "b" not in page.elements, path
    listing = list_page(out).read_text(encoding="utf-8")
    assert escaped in listing
    player = out / "players" / player_file(built["hostile"])
    assert parse(player).title == HOSTILE  # the parsed text is the name itself
    rows = parse(list_page(out)).tables["list"]
    assert any(r[2] == QUOTES for r in rows)


def test_player_file_names_are_safe():
    assert player_file("12345") == "12345.html"
    for hostile in ("../x", "a/b", "A", "a", "..", "", "x" * 200, HOSTILE):
        name = player_file(hostile)
        assert "/" not in name and not name.startswith(".")
        assert len(name) < 80
    assert player_file("A") != player_file("a")  # case-insensitive file systems


def test_player_page_card_is_arpad_card(built):
    store, out = built["store"], built["out"]
    pid = built["hostile"]
    page = parse(out / "players" / player_file(pid))
    cards = page.tables["card"]
    con = catalog.connect(store)
    try:
        want = []
        for period in (135, 134):  # newest first, as on the page
            card = rating_card(store, pid, period, con=con)
            for g in card.games:
                change = (
                    ""
                    if g.delta is None or card.rating_in_force is None
                    else f"{card.k * g.delta:+.2f}"
                )
                rating = "" if g.opponent_rating is None else str(g.opponent_rating)
                want.append([str(g.period), g.opponent_name or g.opponent, rating, change])
    finally:
        con.close()
    glicko_games = len(cards) - len(want)
    got = [[r[0], r[3], r[4], r[7]] for r in cards[: len(want)]]
    assert got == want
    assert glicko_games > 0  # the glicko card of 135 follows
    # the page's published table: one row per list the player is on, values of the list
    rows = page.tables["published"]
    ratings = {(r[0]): r[2] for r in rows}
    for period in (134, 135):
        frozen = published(store, "fide", period).filter(pl.col("player_id") == pid)
        assert ratings[f"fide / standard — period {period}"] == str(frozen["rating"][0])


def test_player_page_generic_card_is_the_period_games(built):
    """A system without per-game changes (Glicko): the period's rated games, with the
    opponent's rating at the start of the period, and no per-game change."""
    store, out = built["store"], built["out"]
    pid = built["quotes"]
    text = (out / "players" / player_file(pid)).read_text(encoding="utf-8")
    assert 'id="card-glicko-standard-135"' in text
    page = Page()  # the glicko section only (the FIDE card lists the same games)
    page.feed(text[text.index('id="card-glicko-standard-135"') :])
    ratings = {
        r["player_id"]: r["rating_before"]
        for r in store.read_ratings("glicko", "standard", 135).to_pylist()
    }
    games = pl.concat([pl.read_parquet(f) for f in store.game_files("standard", 135)])
    mine = games.filter(
        pl.col("rated") & ((pl.col("white_id") == pid) | (pl.col("black_id") == pid))
    )
    rows = [r for r in page.tables["card"] if r[8] in set(mine["game_id"].to_list())]
    assert len(rows) == mine.height
    for row, g in zip(rows, mine.iter_rows(named=True)):
        white = g["white_id"] == pid
        opp = g["black_id"] if white else g["white_id"]
        assert row[2] == ("white" if white else "black")
        score = float(g["score"]) if white else 1 - float(g["score"])
        assert row[6] == {1.0: "1", 0.5: "½", 0.0: "0"}[score]
        r = ratings.get(opp)
        assert row[4] == ("" if r is None else (f"{r:.0f}" if r == int(r) else f"{r:.1f}"))
        assert row[7] == ""


def test_history_chart_is_inline_svg_of_the_ratings(built):
    store, out = built["store"], built["out"]
    pid = built["hostile"]
    text = (out / "players" / player_file(pid)).read_text(encoding="utf-8")
    assert text.count("<svg") == 2  # fide and glicko
    fide = text[text.index("<svg") : text.index("</svg>")]
    history = arpad.Store(store.root).history(pid, "fide")
    points = history.filter(pl.col("event") != "adjustment")["rating_after"].drop_nulls()
    assert fide.count("<circle") == len(points)
    assert fide.count('class="pub"') == 2  # the published periods 134 and 135
    for r in points.to_list():  # FIDE publishes whole numbers (tests/test_site_round7.py)
        assert f": {r:.0f}</title>" in fide
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")


# -- refusals and atomic output ------------------------------------------------------------


def test_nothing_published_is_exit_2_with_the_hint(tmp_path, capsys, bundled_data):
    games, ratings, _ = subset(bundled_data / "deloitte_fide_2011", tmp_path)
    root = tmp_path / "store"
    main(["ingest", str(games), "--players", str(ratings), "--store", str(root), "--no-flow"])
    capsys.readouterr()
    assert main(["site", "--out", str(tmp_path / "s"), "--store", str(root)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "arpad publish --period P" in err
    assert not (tmp_path / "s").exists()


def test_out_inside_the_store_or_a_foreign_folder_is_refused(built, tmp_path, capsys):
    root = built["store"].root
    for out in (root / "site", root):
        assert main(["site", "--out", str(out), "--store", str(root)]) == 2
        assert "inside the store" in capsys.readouterr().err
    assert not (root / "site").exists()
    foreign = tmp_path / "docs"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine")
    assert main(["site", "--out", str(foreign), "--store", str(root)]) == 2
    assert "not written by arpad site" in capsys.readouterr().err
    assert (foreign / "keep.txt").read_text() == "mine"


def test_rebuild_replaces_the_site_and_leaves_no_temporaries(built, tmp_path):
    out = tmp_path / "pub" / "site"
    store = arpad.Store(built["store"].root)
    store.site(out, system="fide", pools=["standard"])
    assert sorted(p.name for p in (out / "lists").iterdir()) == [
        "fide-standard-134.html",
        "fide-standard-135.html",
    ]
    (out / "stale.html").write_text("old")
    summary = store.site(out, system="glicko")
    assert summary.lists == [("glicko", "standard", 135)]
    assert not (out / "stale.html").exists()
    assert sorted(p.name for p in out.parent.iterdir()) == ["site"]  # nothing left beside it


# -- in a real browser ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    for exe in (CHROMIUM, CHROMEDRIVER):
        assert os.access(exe, os.X_OK), f"{exe} missing: apt-get install chromium chromium-driver"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    profile = tempfile.mkdtemp(prefix="arpad-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    # the driver's path is given: selenium-manager is never asked to download one
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def visible_ids(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#list tbody tr'))"
        ".filter(r => !r.hidden).map(r => r.cells[1].textContent);"
    )


@pytest.mark.browser
def test_list_page_in_chromium(built, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    frozen = published(built["store"], "fide", 135)
    browser.get(list_page(built["out"]).resolve().as_uri())
    rows = browser.find_elements(By.CSS_SELECTOR, "#list tbody tr")
    assert len(rows) == frozen.height
    assert visible_ids(browser) == frozen["player_id"].to_list()

    # search by name: the player named "Player <id>" of the third named player
    target = built["named"][2]
    search = browser.find_element(By.ID, "search")
    search.send_keys(f"player {target}")
    expected = frozen.filter(
        pl.col("name").str.to_lowercase().str.contains(f"player {target}", literal=True)
        | pl.col("player_id").str.contains(f"player {target}", literal=True)
    )["player_id"].to_list()
    assert visible_ids(browser) == expected == [target]
    assert browser.find_element(By.ID, "shown").text == "1"
    # search by id: every id or name containing it
    search.clear()
    query = built["named"][0][:2]
    search.send_keys(query)
    expected = frozen.filter(
        pl.col("player_id").str.contains(query, literal=True)
        | pl.col("name").fill_null("").str.to_lowercase().str.contains(query, literal=True)
    )["player_id"].to_list()
    assert visible_ids(browser) == expected and len(expected) > 1
    search.clear()
    browser.execute_script("document.getElementById('search').dispatchEvent(new Event('input'))")
    assert len(visible_ids(browser)) == frozen.height

    # federation filter
    Select(browser.find_element(By.ID, "fed")).select_by_value("NOR")
    nor = frozen.filter(pl.col("federation") == "NOR")["player_id"].to_list()
    assert visible_ids(browser) == nor and len(nor) == 10
    # title filter on top of it
    Select(browser.find_element(By.ID, "title")).select_by_value("GM")
    gm = frozen.filter((pl.col("federation") == "NOR") & (pl.col("title") == "GM"))
    assert visible_ids(browser) == gm["player_id"].to_list()
    Select(browser.find_element(By.ID, "fed")).select_by_value("")
    Select(browser.find_element(By.ID, "title")).select_by_value("")
    assert len(visible_ids(browser)) == frozen.height

    # sort by rating: ascending, then descending
    header = browser.find_element(By.XPATH, "//table[@id='list']/thead//th[text()='Rating']")
    header.click()
    ratings = [int(x) for x in browser.execute_script(
        "return Array.from(document.querySelectorAll('#list tbody tr'))"
        ".map(r => r.cells[7].textContent);")]  # fmt: skip
    assert ratings == sorted(frozen["rating"].to_list())
    header.click()
    ratings = [int(x) for x in browser.execute_script(
        "return Array.from(document.querySelectorAll('#list tbody tr'))"
        ".map(r => r.cells[7].textContent);")]  # fmt: skip
    assert ratings == sorted(frozen["rating"].to_list(), reverse=True)


@pytest.mark.browser
def test_player_link_opens_the_card_in_chromium(built, browser):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    pid = built["hostile"]
    browser.get(list_page(built["out"]).resolve().as_uri())
    browser.find_element(By.ID, "search").send_keys(pid)
    link = next(
        a
        for a in browser.find_elements(By.CSS_SELECTOR, "#list tbody tr a.player")
        if a.text == HOSTILE
    )
    link.click()
    assert browser.current_url.endswith("/players/" + player_file(pid))
    with pytest.raises(NoAlertPresentException):
        _ = browser.switch_to.alert.text  # the hostile name did not run
    assert browser.find_element(By.TAG_NAME, "h1").text == HOSTILE
    card = rating_card(built["store"], pid, 135)
    rows = browser.find_elements(By.CSS_SELECTOR, "#card-fide-standard-135 + p + table tr.game")
    assert len(rows) == len(card.games) > 0
    first = rows[0].find_elements(By.TAG_NAME, "td")
    assert first[3].text == (card.games[0].opponent_name or card.games[0].opponent)
    charts = browser.find_elements(By.CSS_SELECTOR, "svg.chart")
    assert len(charts) == 2
    assert charts[0].size["width"] > 100
    assert len(charts[0].find_elements(By.CSS_SELECTOR, "circle.pub")) == 2


def test_a_failed_build_keeps_the_previous_site(built, tmp_path, monkeypatch):
    from arpad.pipeline import site_players

    out = tmp_path / "site"
    store = arpad.Store(built["store"].root)
    store.site(out, system="glicko")
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")
        yield  # a generator, like player_pages

    monkeypatch.setattr(site_players, "player_pages", broken)
    with pytest.raises(RuntimeError, match="disk on fire"):
        store.site(out, system="fide")
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
