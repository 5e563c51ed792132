// Show the chosen game's fields, and the custom size fields only when "Custom" is chosen.
(function () {
  "use strict";
  const form = document.querySelector(".create-form");
  if (!form) return;
  const custom = document.getElementById("custom-size");
  function update() {
    const game = form.querySelector('input[name="game"]:checked');
    const chosen = game ? game.value : "minesweeper";
    form.querySelectorAll(".game-fields").forEach((fields) => {
      fields.hidden = fields.dataset.game !== chosen;
    });
    const choice = form.querySelector('input[name="preset"]:checked');
    custom.hidden = !choice || choice.value !== "custom";
  }
  form.addEventListener("change", update);
  update();
})();
