import './style.css';
document.getElementById('app')?.append(document.createTextNode('Seksenbir'));
