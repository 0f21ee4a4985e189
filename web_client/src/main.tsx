import { render } from "preact";
import { App } from "./app";
import "./style.css";
import { faceStylesheet } from "./tiles";
import { AppContext } from "./ui/common";
import { Root } from "./ui/root";

// The tile faces: one stylesheet of data: URLs, made once.
const faces = document.createElement("style");
faces.textContent = faceStylesheet();
document.head.appendChild(faces);

const app = new App(window.localStorage, window.location);
// For the browser tests and the curious: the running app (state, and dropConnection() to test resumes).
(window as unknown as { guobiao: App }).guobiao = app;
render(
  <AppContext.Provider value={app}>
    <Root />
  </AppContext.Provider>,
  document.getElementById("app")!,
);
app.start();
