// Room chat (templates/games/chat.html): tabs for the two channels, the players' choice to hide
// the spectators' tab, the input cleared once sent, and each log kept to the last 50 lines
// (a line the snapshot already showed and that arrives again is shown once), and what is unread:
// each tab and the fold carry data-unread (DESIGN.md "Alerts"), lines that name the reader are
// counted apart and told to alerts.js ("chat:mentions"), and a reader looking at the other tab is
// told where their line goes.
(function () {
  "use strict";
  const KEPT = 50;
  const panel = document.getElementById("chat");
  if (!panel) return;
  const tabs = Array.from(panel.querySelectorAll('[role="tab"]'));
  const hide = panel.querySelector(".chat-hide-spectators");
  const fold = panel.querySelector(".chat-fold");
  const form = panel.querySelector(".chat-form");
  const input = panel.querySelector(".chat-input");
  const HIDDEN_KEY = "chat-hide-spectators";
  const OWN_CHANNEL = panel.dataset.role === "spectator" ? "spectators" : "players";
  const whereTo = panel.querySelector(".chat-where");
  const myName = (panel.dataset.me || "").trim();
  const escaped = myName.replace(/[.*+?^$()|[\]{}\\]/g, "\\$&");
  // The name as a word of its own (an @ before it welcome): "Bo" names Bo, "Bob" does not.
  const mentionPattern = myName ? new RegExp(`(^|[^\\p{L}\\p{N}_])@?${escaped}(?![\\p{L}\\p{N}_])`, "iu") : null;
  const seen = new Set(); // ids of the lines already counted (or in the opening snapshot)
  const unread = { players: new Set(), spectators: new Set() };
  const mentions = new Set(); // ids of unread lines that name the reader
  const sent = []; // the reader's lines on their way (text), so that their echo is not news
  let primed = false;

  function select(tab) {
    for (const each of tabs) {
      const on = each === tab;
      each.setAttribute("aria-selected", on ? "true" : "false");
      each.tabIndex = on ? 0 : -1;
      document.getElementById(each.getAttribute("aria-controls")).hidden = !on;
    }
    markRead();
    sayWhereTo();
  }

  tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => select(tab));
    tab.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const shown = tabs.filter((each) => !each.hidden);
      const next = shown[(shown.indexOf(tab) + step + shown.length) % shown.length];
      select(next);
      next.focus();
      event.preventDefault();
    });
  });

  function hideSpectators(hidden) {
    const tab = document.getElementById("chat-tab-spectators");
    tab.hidden = hidden;
    hide.setAttribute("aria-pressed", hidden ? "true" : "false");
    hide.textContent = hidden ? "Show spectators" : "Hide spectators";
    if (hidden && tab.getAttribute("aria-selected") === "true") select(tabs[0]);
    try { localStorage.setItem(HIDDEN_KEY, hidden ? "1" : ""); } catch (e) { /* private mode */ }
  }
  if (hide) {
    hide.addEventListener("click", () => hideSpectators(hide.getAttribute("aria-pressed") !== "true"));
    let stored = "";
    try { stored = localStorage.getItem(HIDDEN_KEY) || ""; } catch (e) { /* private mode */ }
    if (stored) hideSpectators(true);
  }

  // Phones: the chat starts folded under the board; a tap on its heading opens it.
  if (window.matchMedia("(max-width: 40rem)").matches) fold.open = false;

  // --- unread lines -----------------------------------------------------------------------------
  // A line is read once its tab is selected in the open chat of a visible page. Lines of the
  // snapshot a page opens with are not news; lines after it are, but not the reader's own, nor
  // those of a tab the player hid.

  function tabOf(channel) { return document.getElementById(`chat-tab-${channel}`); }
  function looking(channel) {
    return fold.open && !document.hidden && tabOf(channel).getAttribute("aria-selected") === "true";
  }
  function setCount(element, count) {
    element.dataset.unread = String(count);
    const badge = element.querySelector(":scope > .unread-badge, :scope > summary > .unread-badge");
    if (!badge) return;
    badge.hidden = count === 0;
    badge.querySelector(".unread-count").textContent = String(count);
  }
  function showCounts(news) {
    setCount(tabOf("players"), unread.players.size);
    setCount(tabOf("spectators"), unread.spectators.size);
    setCount(fold, unread.players.size + unread.spectators.size);
    document.dispatchEvent(new CustomEvent("chat:mentions", { detail: { count: mentions.size, line: news || null } }));
  }
  function markRead() {
    for (const channel of ["players", "spectators"]) {
      if (!looking(channel)) continue;
      for (const id of unread[channel]) mentions.delete(id);
      unread[channel].clear();
    }
    showCounts();
  }
  function isOwn(line) {
    if (line.dataset.channel !== OWN_CHANNEL) return false;
    const at = sent.indexOf(line.querySelector(".chat-text")?.textContent.trim());
    if (at < 0) return false;
    sent.splice(at, 1);
    return true;
  }
  function countNew(message) {
    const lines = panel.querySelectorAll(".chat-message");
    if (!primed) {
      if (!message.includes('id="chat-players"')) return; // the snapshot with the logs is not here yet
      primed = true;
      lines.forEach((line) => seen.add(line.id));
      return;
    }
    let news = null;
    for (const line of lines) {
      if (seen.has(line.id)) continue;
      seen.add(line.id);
      const channel = line.dataset.channel;
      if (isOwn(line) || looking(channel) || tabOf(channel).hidden) continue;
      unread[channel].add(line.id);
      const text = line.querySelector(".chat-text")?.textContent || "";
      if (mentionPattern && line.dataset.author !== myName && mentionPattern.test(text)) {
        mentions.add(line.id);
        news = { author: line.dataset.author, text: text };
      }
    }
    showCounts(news);
  }
  fold.addEventListener("toggle", markRead);
  document.addEventListener("visibilitychange", markRead);

  // Where the reader's line goes, when the tab they look at is the other one (a spectator reads
  // the players' tab, a player the spectators').
  function sayWhereTo() {
    if (whereTo) whereTo.hidden = tabOf(OWN_CHANNEL).getAttribute("aria-selected") === "true";
  }

  function tidy() {
    for (const log of panel.querySelectorAll(".chat-log")) {
      const seen = new Set();
      const lines = Array.from(log.querySelectorAll(".chat-message")).reverse();
      for (const line of lines) {
        if (seen.has(line.id)) line.remove();
        else seen.add(line.id);
      }
      const kept = log.querySelectorAll(".chat-message");
      for (let i = 0; i < kept.length - KEPT; i++) kept[i].remove();
      log.scrollTop = log.scrollHeight;
    }
  }
  document.body.addEventListener("htmx:wsAfterMessage", (event) => {
    tidy();
    countNew(event.detail.message || "");
  });
  document.body.addEventListener("htmx:wsAfterSend", (event) => {
    if (event.target !== form && !form.contains(event.target)) return;
    sent.push(input.value.trim());
    input.value = "";
  });
  form.addEventListener("submit", (event) => {
    if (!input.value.trim()) event.preventDefault();
  });
  sayWhereTo();
  showCounts();
})();
