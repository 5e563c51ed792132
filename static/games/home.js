// Show the chosen game's fields, and the custom size fields only when "Custom" is chosen.
(function () {
  "use strict";
  const form = document.querySelector(".create-form");
  if (!form) return;
  const custom = document.getElementById("custom-size");
  let lastMode = null;
  let noGuessTouched = false;
  form.addEventListener("change", (event) => {
    if (event.target.name === "no_guess") noGuessTouched = true;
  });
  function update() {
    const game = form.querySelector('input[name="game"]:checked');
    const chosen = game ? game.value : "minesweeper";
    // Only the chosen game's fields are sent: two games may name a field alike (X and O).
    const mode = form.querySelector('input[name="mode"]:checked')?.value || "coop";
    form.querySelectorAll(".game-fields").forEach((fields) => {
      fields.hidden = fields.dataset.game !== chosen || (fields.dataset.mode || mode) !== mode;
      fields.querySelectorAll("input, select, textarea").forEach((field) => {
        field.disabled = fields.hidden;
      });
    });
    // A rated room seats no computer: what only a computer uses goes while Rated is ticked.
    form.querySelectorAll(".game-fields").forEach((fields) => {
      const rated = Boolean(fields.querySelector('input[name="rated"]')?.checked);
      fields.querySelectorAll("[data-unrated]").forEach((part) => { part.hidden = rated; });
    });
    // A race defaults to a no-guess board (a guess decides a race by luck) until the box is touched.
    const noGuess = form.querySelector('#minesweeper-fields input[name="no_guess"]');
    if (noGuess && mode !== lastMode && !noGuessTouched) noGuess.checked = mode === "race";
    lastMode = mode;
    const choice = form.querySelector('input[name="preset"]:checked');
    custom.hidden = !choice || choice.value !== "custom";
    // A hint with one sentence per count of selects holding a value (tic-tac-toe: how many
    // seats are people's) shows the sentence for the current count.
    form.querySelectorAll("[data-count-of]").forEach((hint) => {
      const fields = hint.closest(".game-fields") || form;
      const count = Array.from(fields.querySelectorAll("select"))
        .filter((select) => select.value === hint.dataset.countOf).length;
      hint.querySelectorAll("[data-count]").forEach((sentence) => {
        sentence.hidden = sentence.dataset.count !== String(count);
      });
    });
  }
  form.addEventListener("change", update);
  update();

  // The browser's own check stops at the first invalid field and says only its error (a
  // bubble), in its own words: the server checks every field and says each invalid field's
  // error at once, under each field, in the app's words (issue 35).
  form.noValidate = true;
  // A refused form comes back at the top of a long page: take the player to the first error
  // (a field marked invalid, or the form's own message) so it is seen and typed over at once.
  const firstError = form.querySelector('.form-error, [aria-invalid="true"]');
  if (firstError) {
    firstError.scrollIntoView({ block: "center" });
    firstError.focus({ preventScroll: true });
  }
})();
